"""The stand-in's items: one small integer function per item, written out in each upstream's format.

Item ``i`` of a language computes ``f(n) = sum of j*j for j in 1..n with j % k == r`` (k, r, n drawn from
``i``), so every item is a different program with a different output, and the stand-in endpoint can answer
each refactor prompt with the complete program composed from the item's own function (tests/standin/
README.md). Nothing here is upstream code: every item is generated, and says so in its name (``standin``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    """The parameters of item ``index``: f sums j*j over 1..n where j % k == r; the test calls f(arg)."""

    name: str
    k: int
    r: int
    arg: int

    @classmethod
    def of(cls, prefix: str, index: int) -> Shape:
        k = 2 + index % 5
        return cls(name=f"{prefix}_{index:03d}", k=k, r=(index // 5) % k, arg=10 + (index * 7) % 23)

    def value(self, n: int | None = None) -> int:
        n = self.arg if n is None else n
        return sum(j * j for j in range(1, n + 1) if j % self.k == self.r)

    def buggy_value(self) -> int:
        """The faulty-indexing bug stops one short: 1..n-1."""
        return self.value(self.arg - 1)


# Per language: (signature line, body lines), with {name}, {k}, {r}; `stop` is the loop's bound.
BODY = {
    "python": (
        "def {name}(n: int) -> int:",
        [
            "    s = 0",
            "    for j in range(1, {stop}):",
            "        if j % {k} == {r}:",
            "            s += j * j",
            "    return s",
        ],
    ),
    "c": (
        "int {name}(int n)",
        [
            "{{",
            "    int s = 0;",
            "    for (int j = 1; j < {stop}; j++) {{",
            "        if (j % {k} == {r}) s += j * j;",
            "    }}",
            "    return s;",
            "}}",
        ],
    ),
    "cpp": (
        "int {name}(int n)",
        [
            "{{",
            "    int s = 0;",
            "    for (int j = 1; j < {stop}; j++) {{",
            "        if (j % {k} == {r}) s += j * j;",
            "    }}",
            "    return s;",
            "}}",
        ],
    ),
    "csharp": (
        "    static int {name}(int n)",
        [
            "    {{",
            "        int s = 0;",
            "        for (int j = 1; j < {stop}; j++)",
            "            if (j % {k} == {r}) s += j * j;",
            "        return s;",
            "    }}",
        ],
    ),
    "java": (
        "    static int {name}(int n)",
        [
            "    {{",
            "        int s = 0;",
            "        for (int j = 1; j < {stop}; j++) {{",
            "            if (j % {k} == {r}) s += j * j;",
            "        }}",
            "        return s;",
            "    }}",
        ],
    ),
    "rust": (
        "fn {name}(n: i64) -> i64",
        [
            "{{",
            "    let mut s = 0;",
            "    for j in 1..{stop} {{",
            "        if j % {k} == {r} {{",
            "            s += j * j;",
            "        }}",
            "    }}",
            "    s",
            "}}",
        ],
    ),
}
STOP = {"python": "n + 1", "c": "n + 1", "cpp": "n + 1", "csharp": "n + 1", "java": "n + 1", "rust": "n + 1"}


def function(language: str, shape: Shape, stop: str | None = None) -> tuple[str, str]:
    """(the signature line, the body) of the item's function in ``language``."""
    head, lines = BODY[language]
    values = {"name": shape.name, "k": shape.k, "r": shape.r, "stop": stop or STOP[language]}
    return head.format(**values), "\n".join(line.format(**values) for line in lines) + "\n"


def complete_program(language: str, shape: Shape) -> str:
    """The runnable program a good model writes for the item: the function, then a main that prints f(arg)."""
    head, body = function(language, shape)
    call = f"{shape.name}({shape.arg})"
    if language == "python":
        return f"{head}\n{body}\n\nprint({call})\n"
    if language == "c":
        main = f'int main(void)\n{{\n    printf("%d\\n", {call});\n    return 0;\n}}\n'
        return f"#include <stdio.h>\n\n{head}\n{body}\n{main}"
    if language == "cpp":
        main = f"int main()\n{{\n    std::cout << {call} << std::endl;\n    return 0;\n}}\n"
        return f"#include <iostream>\n\n{head}\n{body}\n{main}"
    if language == "csharp":
        main = f"    static void Main()\n    {{\n        Console.WriteLine({call});\n    }}\n"
        return f"using System;\n\nclass Program\n{{\n{head}\n{body}\n{main}}}\n"
    if language == "java":
        main = f"    public static void main(String[] args) {{\n        System.out.println({call});\n    }}\n"
        return f"public class Main {{\n{head}\n{body}\n{main}}}\n"
    return f'{head}\n{body}\nfn main() {{\n    println!("{{}}", {call});\n}}\n'


# DebugBench's oracle and buggy code: a LeetCode-style class around the item's function.
SOLUTION = {
    "python3": """class Solution:
    def {name}(self, n: int) -> int:
        s = 0
        for j in range(1, {stop}){colon}
            if j % {k} == {r}:
                s += j * j
        return s
""",
    "cpp": """class Solution {{
public:
    int {name}(int n) {{
        int s = 0{semi}
        for (int j = 1; j < {stop}; j++) {{
            if (j % {k} == {r}) s += j * j;
        }}
        return s;
    }}
}};
""",
    "java": """class Solution {{
    public int {name}(int n) {{
        int s = 0{semi}
        for (int j = 1; j < {stop}; j++) {{
            if (j % {k} == {r}) s += j * j;
        }}
        return s;
    }}
}}
""",
}
BUGS = {  # subtype -> what the buggy code changes
    "faulty indexing": {"stop": "n"},
    "missing colons": {"colon": "", "semi": ""},
}


def solution(language: str, shape: Shape, subtype: str | None = None) -> str:
    """The oracle code (subtype None), or the code with that subtype's bug."""
    values = {"name": shape.name, "k": shape.k, "r": shape.r, "stop": "n + 1", "colon": ":", "semi": ";"}
    values |= BUGS.get(subtype or "", {})
    return SOLUTION[language].format(**values)


def harness(language: str, shape: Shape) -> str:
    """The oracle verbatim, and a main that prints the solution's answer for the item's argument."""
    oracle = solution(language, shape)
    call = f"{shape.name}({shape.arg})"
    if language == "python3":
        return f"{oracle}\n\nprint(Solution().{call})\n"
    if language == "cpp":
        main = f"int main() {{\n    Solution sol;\n    cout << sol.{call} << endl;\n    return 0;\n}}\n"
        return f"#include <iostream>\nusing namespace std;\n\n{oracle}\n{main}"
    prints = f"System.out.println(new Solution().{call});"
    main = f"    public static void main(String[] args) {{\n        {prints}\n    }}\n"
    return f"{oracle}\npublic class Main {{\n{main}}}\n"


# OJCode: a stdin program; the stand-in's answer is its input.
OJ_PROGRAM = """#include <cstdio>

int main() {{
    int n;
    long long s = 0;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {{
        int a;
        scanf("%d", &a);
        if (a % {k} == {r}) s += (long long)a * a;
    }}
    printf("%lld\\n", s);  // {name}
    return 0;
}}
"""


def oj_program(shape: Shape) -> str:
    return OJ_PROGRAM.format(k=shape.k, r=shape.r, name=shape.name)


def oj_input(shape: Shape) -> str:
    numbers = " ".join(str(j) for j in range(1, shape.arg + 1))
    return f"{shape.arg}\n{numbers}\n"
