# Does not parse: the report of a syntax error (ERROR: LoadError: syntax: ...).
function f(x::Int64)::Int64
    return x +
end
