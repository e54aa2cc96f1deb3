"""The template library shipped in the repository: sc and tc scripts and samplers (dr: snippet_files.py).

A script belongs to the subset whose folder holds its file (scripts/<subset>/<fid>): the samplers here
name no subset, and ``pipeline.templates.library_scripts(subset)`` pairs them with a subset's folder.

sc parameter ranges keep each instance's run time between milliseconds and about a second on one core.
A tc template has a size parameter (``Scale``): the build measures each template's run time over a short
ladder of sizes and draws instances for the time bins it is asked to fill (pipeline/build/spread.py);
the measured CPU time, not the plan, decides the bin a row lands in. A new template is one script in
scripts/<subset>/ (argparse, prints its result) plus one entry here.
"""

from __future__ import annotations

import random

from pipeline.templates.base import (
    Scale,
    Script,
    SizedSampler,
    ValueSampler,
    choice,
    decimal,
    int_list,
    integer,
    matrix,
    options,
    points,
    sized,
    word,
)


def _linear_system(rng: random.Random) -> tuple[str, ...]:
    text = matrix((2, 5))(rng)
    n = text.count(";") + 1
    rhs = ",".join(str(rng.randint(-20, 20)) for _ in range(n))
    return (f"--matrix={text}", f"--rhs={rhs}")


def _least_squares(rng: random.Random) -> tuple[str, ...]:
    count, slope, intercept = rng.randint(3, 12), rng.uniform(-3, 3), rng.uniform(-5, 5)
    xs = [round(rng.uniform(-10, 10), 1) for _ in range(count)]
    ys = [round(slope * x + intercept + rng.gauss(0, 1), 2) for x in xs]
    return (f"--xs={','.join(map(str, xs))}", f"--ys={','.join(map(str, ys))}")


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
    Script(
        "wave_1d.py",
        "pde",
        options(
            L=decimal(1, 10),
            c=decimal(0.5, 3),
            Nx=integer(5, 14),
            Nt=integer(1, 60),
            dt=decimal(0.001, 0.05, 3),
        ),
    ),
    Script(
        "sir_euler.py",
        "ode",
        options(
            beta=decimal(0.1, 1),
            gamma=decimal(0.05, 0.5),
            i0=decimal(0.001, 0.1, 3),
            dt=decimal(0.01, 0.5),
            steps=integer(10, 2000),
        ),
    ),
    Script(
        "power_method_eigen.py",
        "linear algebra",
        options(matrix=matrix((2, 5), 0, 9), iterations=integer(1, 60)),
    ),
    Script(
        "bisection_root.py",
        "numerical methods",
        options(
            coeffs=int_list((2, 5), -9, 9), a=decimal(-6, -0.5), b=decimal(0.5, 6), iterations=integer(3, 50)
        ),
    ),
    Script(
        "golden_section_search.py",
        "optimisation",
        options(
            c=decimal(-3, 3), s=decimal(0, 2), a=decimal(-6, -3), b=decimal(3, 6), iterations=integer(3, 60)
        ),
    ),
    Script(
        "convolve_signal.py",
        "signal processing",
        options(length=integer(24, 600), f1=decimal(0.5, 5), f2=decimal(5, 40), width=integer(1, 12)),
    ),
    Script("least_squares_fit.py", "numerical methods", _least_squares),
)


def _seeded(flag: str, **more: ValueSampler) -> SizedSampler:
    """``--flag SIZE`` plus the other options and a seed: the seeded-input tc scripts' command line."""
    rest = options(**more, seed=integer(0, 10**6))
    return lambda rng, size: (f"--{flag}", str(size), *rest(rng))


def _points(rng: random.Random, size: int) -> tuple[str, ...]:
    return ("--positions", points((size, size))(rng))


def _subset_sum(rng: random.Random, size: int) -> tuple[str, ...]:
    values = [rng.randint(1, 60) for _ in range(size)]
    # half the total: the search cannot stop early on a target too small or too large
    return (f"--values={','.join(map(str, values))}", f"--target={sum(values) // 2}")


def _edit(rng: random.Random, size: int) -> tuple[str, ...]:
    return ("--a", word((size, size))(rng), "--b", word((size, size))(rng))


def _bubble(rng: random.Random, size: int) -> tuple[str, ...]:
    # a fixed list length, so the run time depends on the repeat count alone
    return ("--values", int_list((60, 60), -500, 500, sep=" ")(rng), "--repeat", str(size))


def _binary(rng: random.Random, size: int) -> tuple[str, ...]:
    return options(size=integer(100, 100000))(rng) + (
        "--queries",
        str(size),
        "--stride",
        str(rng.randint(1, 7)),
    )


def _grid(rng: random.Random, size: int) -> tuple[str, ...]:
    return ("--width", str(size), "--height", str(size), "--seed", str(rng.randint(0, 10**6)))


def _kmp(rng: random.Random, size: int) -> tuple[str, ...]:
    pattern, alphabet = word((1, 6), "ab")(rng), choice("ab", "abc", "abcd")(rng)
    return (
        "--pattern",
        pattern,
        "--alphabet",
        alphabet,
        "--length",
        str(size),
        "--seed",
        str(rng.randint(0, 1000)),
    )


def _rabin_karp(rng: random.Random, size: int) -> tuple[str, ...]:
    pattern = word((2, 8), "ab")(rng)
    return (
        "--pattern",
        pattern,
        "--length",
        str(size),
        "--alphabet",
        "ab",
        "--seed",
        str(rng.randint(0, 1000)),
    )


def _knapsack(rng: random.Random, size: int) -> tuple[str, ...]:
    return ("--items", str(size), "--capacity", str(40 * size), "--seed", str(rng.randint(0, 10**6)))


def _queens(rng: random.Random, size: int) -> tuple[str, ...]:
    return ("--n", str(size))


P, EXP = "power", "exponential"
# The last argument of a power Scale: the exponent of its size that run time grows with past the
# calibration's ladder (templates/base.py, Scale): 1 for a scan or a Monte Carlo loop, 2 for two nested
# loops over the size or a table of size x size, 3 for Floyd-Warshall. Dijkstra over a grid and graph
# colouring give none: the rows of two full builds grew as the ladder's own slope said (Dijkstra: 2.7,
# not the 2.2 of E log V) or not at all. Nor do the exponential templates: a search's pruning makes its
# growth per element vary with the instance (subset sum's rows ran 0.6-0.9 of the time planned).
# n log n at a million elements is n^1.07; Python's lists past the caches make merge and heap sort grow
# faster still (their rows in two full builds: n^1.2-1.35, heap sort's noisiest), quick sort's slower
# (n^0.93: its exponent is 1).
N_LOG_N = 1.15
TC: tuple[Script, ...] = (
    sized(
        "merge_sort.py",
        "sorting",
        Scale("n", 1000, 4_000_000, (10_000, 100_000, 400_000, 1_600_000), _seeded("n"), P, 60000, N_LOG_N),
    ),
    sized("bubble_sort.py", "sorting", Scale("repeat", 1, 1200, (4, 16, 40, 80, 160), _bubble, P, 8, 2)),
    sized(
        "binary_search_count.py",
        "searching",
        Scale("queries", 100, 40_000_000, (10_000, 100_000, 1_000_000, 3_000_000), _binary, P, 40000, 1),
    ),
    sized("dijkstra_grid.py", "graph (P)", Scale("size", 5, 2000, (40, 120, 300, 700), _grid, P, 120)),
    sized(
        "tsp_bruteforce.py", "graph (NP-hard)", Scale("vertices", 3, 12, (7, 8, 9, 10, 11), _points, EXP, 8)
    ),
    sized("subset_sum.py", "search (NP)", Scale("values", 6, 30, (16, 20, 22, 24), _subset_sum, EXP, 14)),
    sized(
        "graph_coloring.py",
        "graph (NP)",
        Scale(
            "vertices",
            5,
            20,
            (5, 10, 15, 20),
            _seeded("vertices", density=decimal(0.1, 0.6), k=integer(3, 4)),
            P,
            16,
        ),
    ),
    sized(
        "mc_pi.py",
        "Monte Carlo",
        Scale(
            "samples",
            1000,
            400_000_000,
            (100_000, 1_000_000, 4_000_000, 16_000_000),
            _seeded("samples"),
            P,
            300000,
            1,
        ),
    ),
    sized(
        "kmp_count.py",
        "string matching",
        Scale("length", 100, 30_000_000, (100_000, 1_000_000, 4_000_000, 12_000_000), _kmp, P, 200000, 1),
    ),
    sized(
        "edit_distance.py",
        "string matching",
        Scale("length", 5, 16000, (300, 800, 1600, 3200), _edit, P, 400, 2),
    ),
    sized(
        "quick_sort.py",
        "sorting",
        Scale("n", 1000, 4_000_000, (10_000, 100_000, 400_000, 1_600_000), _seeded("n"), P, 60000, 1),
    ),
    sized(
        "insertion_sort.py",
        "sorting",
        Scale("n", 10, 80000, (2000, 5000, 10_000, 20_000), _seeded("n"), P, 1500, 2),
    ),
    sized(
        "heap_sort.py",
        "sorting",
        Scale("n", 1000, 4_000_000, (10_000, 100_000, 400_000, 1_000_000), _seeded("n"), P, 60000, N_LOG_N),
    ),
    sized(
        "bfs_maze.py",
        "graph (P)",
        Scale("size", 5, 3000, (100, 300, 800, 1500), _seeded("size", walls=decimal(0.1, 0.35)), P, 150, 2),
    ),
    sized(
        "floyd_warshall.py",
        "graph (P)",
        Scale(
            "vertices",
            5,
            1200,
            (50, 100, 200, 400),
            _seeded("vertices", density=decimal(0.05, 0.5)),
            P,
            60,
            3,
        ),
    ),
    sized("nqueens_count.py", "search (NP-hard)", Scale("n", 4, 15, (9, 10, 11, 12, 13), _queens, EXP, 8)),
    sized(
        "knapsack_dp.py",
        "optimisation (DP)",
        Scale("items", 5, 5000, (150, 300, 600, 1200), _knapsack, P, 60, 2),  # items x capacity 40 items
    ),
    sized(
        "max_clique.py",
        "graph (NP-hard)",
        Scale("vertices", 5, 25, (14, 16, 18, 20), _seeded("vertices", density=decimal(0.3, 0.7)), EXP, 11),
    ),
    sized(
        "mc_integral.py",
        "Monte Carlo",
        Scale(
            "samples",
            1000,
            400_000_000,
            # from 100,000 (about 0.03 s): a ladder whose first rung took 0.13 s could not be predicted
            # below it, so the template never had a turn in tc's <0.1s bin (a regrown tc of 20 families)
            (100_000, 1_000_000, 4_000_000, 16_000_000),
            _seeded("samples", b=decimal(0.5, 3)),
            P,
            300000,
            1,
        ),
    ),
    sized(
        "rabin_karp_count.py",
        "string matching",
        Scale("length", 100, 30_000_000, (100_000, 1_000_000, 4_000_000), _rabin_karp, P, 100000, 1),
    ),
    sized(
        "lcs_length.py",
        "string matching (DP)",
        Scale("length", 5, 20000, (300, 800, 1600, 3200), _seeded("length"), P, 300, 2),
    ),
)
