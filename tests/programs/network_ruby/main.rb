require "socket"

[["1.1.1.1", 53], ["127.0.0.1", 22]].each do |host, port|
  Socket.tcp(host, port, connect_timeout: 1).close
  puts "CONNECTED #{host}"
rescue SystemCallError, IOError, SocketError => error
  puts "no network #{host} #{error.class}"
end
