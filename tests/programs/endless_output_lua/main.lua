local line = string.rep("spam ", 100)
while true do
    print(line)
end
