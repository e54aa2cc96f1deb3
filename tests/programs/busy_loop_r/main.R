repeat {
}
