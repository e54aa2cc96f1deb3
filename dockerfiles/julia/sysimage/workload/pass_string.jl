# Passes: String methods CRUXEval-X's programs use (split, strip, join, replace, find, case, repeat, reverse).
function f(text::String, n::Int64)::String
    parts = split(strip(text), " ")
    s = join([uppercase(p) * lowercase(p) for p in parts if !isempty(p)], "-")
    s = replace(s, "A" => "b")
    if occursin("LL", s) && startswith(s, "H") && !endswith(s, "x")
        s = s * string(count(c -> isuppercase(c), s))
    end
    first_l = findfirst(isequal('l'), s)
    head = first_l === nothing ? "" : s[1:first_l]
    digits = filter(isdigit, collect(s))
    return repeat(s, n) * string(length(s)) * reverse(s) * head * String(digits) * "$(n)!"
end
using Test

@testset begin

candidate = f;
	@test(candidate("hello world", 2) == "HELLOhello-WORLDworld10HELLOhello-WORLDworld1023" *
	      "01dlrowDLROW-ollehOLLEHHELLOhel102!")
	@test(candidate("  ", 1) == "01!")
end
