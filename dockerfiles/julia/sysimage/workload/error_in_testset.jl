# Errors: an exception inside @test ("Error During Test" with its stack trace).
function f(nums::Vector{Int64})::Int64
    return nums[length(nums) + 1]
end
using Test

@testset begin

candidate = f;
	@test(candidate([1, 2]) == 3)
end
