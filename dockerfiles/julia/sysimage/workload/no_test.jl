# No Test: printing of common values, then an uncaught error (ERROR: LoadError with a stack trace).
d = Dict("b" => 2, "a" => 1)
println(join(sort(collect(keys(d))), ","), " ", sum(values(d)), " ", d)
println(uppercase("hello"), " ", reverse([1, 2, 3]), " ", (1, "x", 2.5), " ", 'c', " ", nothing)
println(string(42) * string(3.5), " ", parse(Int64, "17") + 1, " ", findfirst(isequal('l'), "hello"))
error("surge precompile workload: an uncaught error")
