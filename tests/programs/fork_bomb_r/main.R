# mcfork returns in the parent and in the child alike: both go on forking.
repeat {
    try(parallel:::mcfork(), silent = TRUE)
}
