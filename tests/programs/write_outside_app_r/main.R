for (path in c("/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/opt/surge-runner/escape", "/root/surge-escape")) {
    wrote <- tryCatch({
        writeLines("x", path)
        TRUE
    }, error = function(e) FALSE, warning = function(w) FALSE)
    cat(sprintf("%s %s\n", if (wrote) "WROTE" else "refused", path))
}
