# Fails and errors: reports printing a Float64, nested Vectors, nothing, a Set, a Bool; a KeyError and an
# ArgumentError thrown inside @test.
function f(x::Float64)::Float64
    return x * 1.1
end
function g(d::Dict{String, Int64}, key::String)::Int64
    d[key] < 0 && throw(ArgumentError("negative value for $key"))
    return d[key]
end
using Test

@testset begin
	@test(f(3.0) == 3.3)
	@test([[1, 2], [3]] == [[1, 2], [3, 4]])
	@test(findfirst(isequal(9), [1, 2]) == 1)
	@test(Set(["x", "y"]) == Set(["x"]))
	@test(isempty([1]) == true)
	@test(g(Dict("a" => 1), "b") == 1)
	@test(g(Dict("a" => -1), "a") == 1)
end
