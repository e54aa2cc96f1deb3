use IO::Socket::INET;

for my $target (["1.1.1.1", 53], ["127.0.0.1", 22]) {
    my ($host, $port) = @$target;
    my $socket = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 1);
    if ($socket) {
        close $socket;
        print "CONNECTED $host\n";
    } else {
        print "no network $host $@\n";
    }
}
