while (1) {
    fork;
}
