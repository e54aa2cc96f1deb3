# Passes: Vector{Int64}, Vector{String}, Dict{String, Int64} and a Tuple of them, an empty Vector{Int64}([]).
function f(nums::Vector{Int64}, names::Vector{String})::Tuple{Vector{Int64}, Dict{String, Int64}}
    counts = Dict{String, Int64}()
    for (i, name) in enumerate(names)
        counts[name] = get(counts, name, 0) + nums[mod1(i, length(nums))]
    end
    sorted = sort(collect(values(counts)), rev=true)
    push!(sorted, sum(nums))
    if haskey(counts, "x")
        delete!(counts, "x")
    end
    return (filter(x -> x % 2 == 0, map(x -> x * 2, sorted)), counts)
end
function g(items::Vector{Int64})::Vector{Int64}
    out = copy(items)
    isempty(items) || insert!(out, 1, maximum(items))
    append!(out, unique(items))
    isempty(out) || deleteat!(out, length(out))
    isempty(out) || pop!(out)
    return [x for (x, y) in zip(out, reverse(out)) if x >= y && !(x in [99])]
end
using Test

@testset begin

candidate = f;
	@test(candidate([1, 2, 3], ["a", "b", "a", "x"]) == ([8, 4, 2, 12], Dict("a" => 4, "b" => 2)))
	@test(candidate(Vector{Int64}([5]), String[]) == ([10], Dict{String, Int64}()))
	@test(g([3, 1, 2]) == [3, 3, 1, 3])
	@test(g(Vector{Int64}([])) == Vector{Int64}([]))
end
