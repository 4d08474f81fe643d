/* The seeds' fib program (symbolization-simplest-case), used by scripts/demo. */
#include <stdio.h>
#include <stdlib.h>
long fibNaive(long n) {
    if (n <= 2) {
        return 1;
    }
    return fibNaive(n-2) + fibNaive(n-1);
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 50;
    long res = fibNaive(n);
    printf("Fibonacci number %li: %li\n", n, res);
    return 0;
}
