for (target in list(list("1.1.1.1", 53), list("127.0.0.1", 22))) {
    host <- target[[1]]
    connected <- tryCatch({
        close(socketConnection(host, target[[2]], timeout = 1))
        TRUE
    }, error = function(e) FALSE, warning = function(w) FALSE)
    cat(sprintf("%s %s\n", if (connected) "CONNECTED" else "no network", host))
}
