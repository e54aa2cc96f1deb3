"""The template library shipped in the repository: sc and tc scripts and dr snippets, with their samplers.

A script belongs to the subset whose folder holds its file (scripts/<subset>/<fid>): the samplers here
name no subset, and ``pipeline.templates.library_scripts(subset)`` pairs them with a subset's folder.

Parameter ranges keep each instance's run time between milliseconds and about a second on one core
(tc's time bins come from the measured CPU time, not from the ranges). A new template is one script in
scripts/<subset>/ (argparse, prints its result) plus one entry here.
"""

from __future__ import annotations

import random

from pipeline.templates.base import (
    Script,
    SnippetTemplate,
    choice,
    decimal,
    int_list,
    integer,
    matrix,
    options,
    points,
    word,
)


def _linear_system(rng: random.Random) -> tuple[str, ...]:
    text = matrix((2, 5))(rng)
    n = text.count(";") + 1
    rhs = ",".join(str(rng.randint(-20, 20)) for _ in range(n))
    return (f"--matrix={text}", f"--rhs={rhs}")


SC: tuple[Script, ...] = (
    Script(
        "heat_1d.py",
        "pde",
        options(
            L=integer(1, 100), T=decimal(0.1, 5), alpha=decimal(0.01, 1), Nx=integer(3, 12), Nt=integer(1, 40)
        ),
    ),
    Script(
        "rk4_oscillator.py",
        "ode",
        options(
            x0=decimal(-2, 2),
            v0=decimal(-2, 2),
            omega=decimal(0.5, 5),
            damping=decimal(0, 0.5),
            dt=decimal(0.001, 0.05, 3),
            steps=integer(10, 2000),
        ),
    ),
    Script(
        "newton_root.py",
        "numerical methods",
        options(coeffs=int_list((2, 5), -9, 9), x0=decimal(-5, 5), max_iter=integer(5, 60)),
    ),
    Script(
        "simpson_integral.py",
        "numerical methods",
        options(
            function=choice("sin", "exp", "gauss", "poly"),
            a=decimal(-3, 0),
            b=decimal(0.5, 4),
            n=integer(2, 400),
        ),
    ),
    Script(
        "gradient_descent.py",
        "optimisation",
        options(x0=decimal(-2, 2), y0=decimal(-1, 3), lr=decimal(0.0001, 0.002, 4), steps=integer(10, 5000)),
    ),
    Script(
        "dft_spectrum.py",
        "signal processing",
        options(n=integer(16, 96), f1=integer(1, 7), f2=integer(8, 15), a2=decimal(0.1, 2)),
    ),
    Script(
        "moving_average_filter.py",
        "signal processing",
        options(length=integer(20, 2000), window=integer(2, 15), noise=decimal(0, 1), seed=integer(0, 10**6)),
    ),
    Script("gauss_elimination.py", "linear algebra", _linear_system),
)

TC: tuple[Script, ...] = (
    Script("merge_sort.py", "sorting", options(n=integer(1000, 60000), seed=integer(1, 10**6))),
    Script(
        "bubble_sort.py",
        "sorting",
        options(values=int_list((10, 120), -500, 500, sep=" "), repeat=integer(1, 8)),
    ),
    Script(
        "binary_search_count.py",
        "searching",
        options(size=integer(100, 100000), queries=integer(100, 40000), stride=integer(1, 7)),
    ),
    Script(
        "dijkstra_grid.py",
        "graph (P)",
        options(width=integer(5, 120), height=integer(5, 120), seed=integer(0, 10**6)),
    ),
    Script("tsp_bruteforce.py", "graph (NP-hard)", options(positions=points((3, 8)))),
    Script(
        "subset_sum.py",
        "search (NP)",
        options(values=int_list((6, 17), 1, 60), target=integer(20, 200)),
    ),
    Script(
        "graph_coloring.py",
        "graph (NP)",
        options(vertices=integer(5, 16), density=decimal(0.1, 0.6), k=integer(3, 4), seed=integer(0, 10**6)),
    ),
    Script("mc_pi.py", "Monte Carlo", options(samples=integer(1000, 300000), seed=integer(0, 10**6))),
    Script(
        "kmp_count.py",
        "string matching",
        options(
            pattern=word((1, 6), "ab"),
            alphabet=choice("ab", "abc", "abcd"),
            length=integer(100, 200000),
            seed=integer(0, 1000),
        ),
    ),
    Script("edit_distance.py", "string matching", options(a=word((5, 400)), b=word((5, 400)))),
)

DR: tuple[SnippetTemplate, ...] = (
    SnippetTemplate("signed_overflow", {"K": integer(1, 50), "J": integer(1, 50)}, "optimisation"),
    SnippetTemplate("cplusplus_macro", {"D": choice("1", "100", "10000")}, "standard"),
    SnippetTemplate("auto_brace_init", {"V": integer(1, 99)}, "standard"),
    SnippetTemplate("out_of_bounds_read", {"A": integer(1, 9), "B": integer(1, 9), "I": integer(2, 3)}, "-O"),
    SnippetTemplate("unsequenced_increment", {"V": integer(1, 20)}, "compiler"),
    SnippetTemplate("nullptr_keyword", {"V": integer(1, 99)}, "standard"),
    SnippetTemplate("register_keyword", {"V": integer(1, 99)}, "compiler and standard"),
    SnippetTemplate("shift_past_width", {"S": integer(32, 40), "V": integer(1, 9)}, "optimisation"),
    SnippetTemplate("pointer_value", {"V": integer(1, 99)}, "none: prints an address, dropped"),
    SnippetTemplate("plain_sum", {"A": integer(1, 999), "B": integer(1, 999)}, "none: same everywhere"),
    SnippetTemplate("constexpr_division", {"A": integer(1, 9)}, "compiler and standard"),
    SnippetTemplate("float_excess_precision", {"N": integer(3, 30)}, "optimisation"),
)
