use strict;
use warnings;

sub f {
    my ($values) = @_;
    return [[map { $_ * 2 } @$values], scalar @$values];
}
use Test::Deep;


sub testhumaneval {
    my $candidate = \&f;
        if(eq_deeply($candidate->([1, 2, 3]),[[2, 4, 6], 3])) {
        print "ok!" }else{
        exit 1;
        }
}

testhumaneval();
