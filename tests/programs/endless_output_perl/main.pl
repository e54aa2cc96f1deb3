my $line = "spam " x 100;
print "$line\n" while 1;
