from calc.parser import Parser

FUNCTIONS = {"max": max, "min": min, "abs": abs}


class CalcError(Exception):
    pass


class Evaluator:
    def __init__(self):
        self.variables = {}

    def run(self, text):
        try:
            tree = Parser(text).statement()
        except ValueError as error:
            raise CalcError(f"syntax: {error}") from None
        if tree[0] == "assign":
            self.variables[tree[1]] = self.value(tree[2])
            return None
        return self.value(tree)

    def value(self, tree):
        kind = tree[0]
        if kind == "num":
            return tree[1]
        if kind == "var":
            if tree[1] not in self.variables:
                raise CalcError(f"unknown variable {tree[1]}")
            return self.variables[tree[1]]
        if kind == "neg":
            return -self.value(tree[1])
        if kind == "call":
            if tree[1] not in FUNCTIONS:
                raise CalcError(f"unknown function {tree[1]}")
            return FUNCTIONS[tree[1]](*(self.value(arg) for arg in tree[2]))
        left, right = self.value(tree[1]), self.value(tree[2])
        if kind in "/%" and right == 0:
            raise CalcError("division by zero")
        if kind == "/":
            return left // right if isinstance(left, int) and isinstance(right, int) and left % right == 0 else left / right
        return {"+": left + right, "-": left - right, "*": left * right, "%": left % right if kind == "%" else 0, "**": left ** right if kind == "**" else 0}[kind]
