# Fails: failed @tests printing a Vector, a Dict, a Tuple with a Char and an empty Int64[].
function f(nums::Vector{Int64})::Vector{Int64}
    return [x * 2 for x in nums if x * 2 > 2]
end
function g(d::Dict{String, Int64})::Dict{String, Int64}
    d["z"] = length(d)
    return d
end
function h(x::Float64, c::Char, b::Bool)::Tuple{Float64, Char, Bool}
    return (x / 2, uppercase(c), !b)
end
using Test

@testset begin
	@test(f([1, 2, 3]) == [4, 6, 8])
	@test(g(Dict("a" => 1)) == Dict("a" => 1))
	@test(h(3.0, 'a', true) == (1.5, 'a', true))
	@test(f(Vector{Int64}([])) == Vector{Int64}([0]))
end
