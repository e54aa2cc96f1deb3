local mib = string.rep("x", 1 << 20)
local hog = {}
while true do
    hog[#hog + 1] = string.rep(mib, 16)  -- 16 MiB at a time, a new string each time
end
