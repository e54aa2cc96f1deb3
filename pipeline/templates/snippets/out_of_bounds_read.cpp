#include <stdio.h>

int main() {
    int arr[2] = {@@A@@, @@B@@};
    int *p = arr;
    printf("%d\n", p[@@I@@] != 0);
    return 0;
}
