["/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/opt/surge-runner/escape", "/root/surge-escape"].each do |path|
  File.write(path, "x")
  puts "WROTE #{path}"
rescue SystemCallError => error
  puts "refused #{path} #{error.class}"
end
