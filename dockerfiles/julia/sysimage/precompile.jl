# Run by make-sysimage.sh in the julia that writes the image (--output-o): compiles each `precompile`
# statement the traced workload wrote (ARGS[1], a folder), so that the methods are native code in the image.
#
# A julia writing an image runs no module's __init__: standard streams, Sys's paths and the load and depot
# paths are set here as PackageCompiler 1.x does for Julia 1.5, and the two paths emptied again at the end
# (each start fills them from its own environment).
Base.reinit_stdio()
@eval Sys BINDIR = ccall(:jl_get_julia_bindir, Any, ())::String
@eval Sys STDLIB = abspath(BINDIR, "..", "share", "julia", "stdlib",
                           string('v', VERSION.major, '.', VERSION.minor))
Base.init_load_path()
Base.init_depot_path()

# An anonymous module, so that nothing of this script is left in Main.
@eval Module() begin
    # Statements name types by module (Test.DefaultTestSet, Base.Dict): every loaded one is bound here.
    function staging_module()
        staging = Module()
        for (_, mod) in Base.loaded_modules
            nameof(mod) in (:Main, :Core, :Base) || Core.eval(staging, :(const $(nameof(mod)) = $mod))
        end
        return staging
    end

    # false for a statement that names the traced programs' own functions (Main.f), or a signature that is
    # not concrete (the @testset macro's varargs, show(io, ::Type)): such are compiled at run time, as before.
    function compiles(staging, statement)
        try
            return Base.include_string(staging, statement) === true
        catch
            return false
        end
    end

    function replay(trace_dir)
        staging = staging_module()
        statements = unique(line for file in readdir(trace_dir, join=true) for line in eachline(file))
        compiled = count(statement -> compiles(staging, statement), statements)
        println("precompiled $compiled of the workload's $(length(statements)) statements")
    end

    replay($(ARGS[1]))
end

empty!(LOAD_PATH)
empty!(DEPOT_PATH)
