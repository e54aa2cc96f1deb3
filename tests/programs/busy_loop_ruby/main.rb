loop do
end
