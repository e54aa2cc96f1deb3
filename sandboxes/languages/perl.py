from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# Test::Deep (libtest-deep-perl) is the module CRUXEval-X's Perl programs compare results with.
SPEC = LanguageSpec(
    language=Language("perl"),
    display_name="Perl",
    aliases=("pl", "perl5"),
    refactor_file="main.pl",
    entry_hint="top-level code",
    fence_tags=("perl", "pl"),
    line_comments=("#",),
    block_comments=(("=pod", "=cut"), ("=begin", "=cut")),  # POD, the comment blocks Perl skips
    setup_packages=("perl", "libtest-deep-perl"),
    image_family="perl",
    image_packages={"bookworm": ("perl", "libtest-deep-perl")},
    image_suite="bookworm",  # no SURGE label is in Perl: no older suite to match, every profile runs it
    source_name="test.pl",
    extensions=(".pl",),
    default_tool="perl",
    apt_packages={"perl": "perl"},
    self_test='print "surge self-test\\n";\n',
    # `keys %h` follows the per-process hash seed; set, it also makes the key order deterministic
    # (perlrun: PERL_HASH_SEED, PERL_PERTURB_KEYS)
    seed_environment="PERL_HASH_SEED",
    seed_test="my %h = map { $_ => 1 } qw(alpha beta gamma delta epsilon zeta eta theta iota);\n"
    'print join(",", keys %h), "\\n";\n',
)
