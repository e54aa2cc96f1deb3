my @hog;
while (1) {
    push @hog, "x" x (16 << 20);  # 16 MiB at a time
}
