# Passes: integer and float arithmetic, a Tuple with a Float64 and a Bool, Bool results.
function f(a::Int64, b::Int64)::Tuple{Int64, Int64, Float64, Bool}
    q, r = div(a, b), mod(a, b)
    return (abs(q - r), max(a, b) ^ 2, round(a / b, digits=2), iseven(a + b))
end
function g(s::String)::Bool
    return all(c -> isletter(c) || c == ' ', s) && length(split(s)) > 1
end
using Test

@testset begin

candidate = f;
	@test(candidate(7, 2) == (2, 49, 3.5, false))
	@test(candidate(-9, 4) == (5, 16, -2.25, false))
	@test(g("two words") == true)
	@test(g("one") == false)
end
