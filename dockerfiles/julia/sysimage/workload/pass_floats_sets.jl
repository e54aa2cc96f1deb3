# Passes: Float64 math and rounding, Sets, a Union{Nothing, ...} result, nested Vectors, Vector{Char}.
function f(xs::Vector{Float64})::Tuple{Float64, Int64, Vector{Float64}}
    m = sum(xs) / length(xs)
    spread = sqrt(sum((x - m) ^ 2 for x in xs) / length(xs))
    scaled = [round(exp(x) - log(x + 1.0) + x ^ 1.5, digits=3) for x in xs]
    return (round(spread, digits=4), floor(Int64, m) + ceil(Int64, maximum(xs)), scaled)
end
function g(a::Vector{String}, b::Vector{String})::Union{Nothing, Vector{String}}
    common = intersect(Set(a), Set(b))
    rest = setdiff(union(Set(a), Set(b)), common)
    return isempty(common) ? nothing : sort(collect(rest))
end
function h(n::Int64)::Vector{Vector{Char}}
    return [collect(string(i)^2) for i in n:-1:1 if !(i in Set([2]))]
end
using Test

@testset begin

candidate = f;
	@test(candidate([1.0, 2.0, 4.0]) == (1.2472, 6, [3.025, 9.119, 60.989]))
	@test(g(["a", "b"], ["b", "c"]) == ["a", "c"])
	@test(g(["a"], ["c"]) === nothing)
	@test(h(3) == [['3', '3'], ['1', '1']])
end
