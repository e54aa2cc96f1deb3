line = "spam " * 100
loop do
  puts line
end
