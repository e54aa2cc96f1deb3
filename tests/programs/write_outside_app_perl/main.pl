for my $path ("/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/opt/surge-runner/escape", "/root/surge-escape") {
    if (open(my $file, ">", $path)) {
        print $file "x";
        close $file;
        print "WROTE $path\n";
    } else {
        print "refused $path $!\n";
    }
}
