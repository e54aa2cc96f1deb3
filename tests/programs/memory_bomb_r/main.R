hog <- list()
repeat {
    hog[[length(hog) + 1]] <- numeric(2 * 1024 * 1024)  # 16 MiB at a time
}
