for _, path in ipairs({"/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/opt/surge-runner/escape", "/root/surge-escape"}) do
    local file, reason = io.open(path, "w")
    if file then
        file:write("x")
        file:close()
        print("WROTE " .. path)
    else
        print("refused " .. path .. " " .. reason)
    end
end
