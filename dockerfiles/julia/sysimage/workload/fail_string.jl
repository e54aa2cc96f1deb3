# Fails: the report of a failed @test on Strings, then "Some tests did not pass" (exit status 1).
function f(text::String)::String
    return join(fill(text, 3), "-")
end
using Test

@testset begin

candidate = f;
	@test(candidate("ab") == "ab-ab")
end
