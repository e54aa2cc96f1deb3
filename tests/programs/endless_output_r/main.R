line <- strrep("spam ", 100)
repeat {
    cat(line, "\n", sep = "")
}
