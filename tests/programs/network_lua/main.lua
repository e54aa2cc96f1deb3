-- Plain Lua has no sockets: what a Lua program can reach is the shell, and bash's /dev/tcp.
for _, target in ipairs({{"1.1.1.1", 53}, {"127.0.0.1", 22}}) do
    local host, port = target[1], target[2]
    local ok = os.execute("bash -c 'exec 3<>/dev/tcp/" .. host .. "/" .. port .. "' 2>/dev/null")
    if ok then print("CONNECTED " .. host) else print("no network " .. host) end
end
