// note: reading past an array is undefined: what sits there depends on the stack layout each -O level picks
// holes: A=1..9 B=1..9 I=2..3
#include <stdio.h>

int main() {
    int arr[2] = {@@A@@, @@B@@};
    int *p = arr;
    printf("%d\n", p[@@I@@] != 0);
    return 0;
}
