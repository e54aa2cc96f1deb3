hog = []
loop do
  hog << "x" * (16 << 20)  # 16 MiB at a time
end
