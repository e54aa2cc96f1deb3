local function f(values)
    local doubled = {}
    for _, v in ipairs(values) do
        table.insert(doubled, v * 2)
    end
    return {doubled, #values}
end
lu = require('luaunit')

function test_humaneval()
local candidate = f
    lu.assertEquals(candidate({1, 2, 3}), {{2, 4, 6}, 3})
end

os.exit(lu.LuaUnit.run())
