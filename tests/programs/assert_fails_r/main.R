f <- function(values) {
    list(values * 2, length(values))
}
test_humaneval <- function() {
candidate <- f
    if(!identical(candidate(c(1, 2, 3)), list(c(2, 4, 7), 3L))){quit('no', 1)}
}
test_humaneval()
