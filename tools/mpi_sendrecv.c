// mpi_sendrecv.c: what the MPI transport alone costs here: each of 2 (or more) ranks sends
// BYTES to its right neighbour and receives as many from its left, 50 times, warm buffers,
// a barrier before each; prints the best and mean time on rank 0. The floor under one phase
// of the all-reduce (docs/cluster.md).
//   mpicc -O2 tools/mpi_sendrecv.c -o /tmp/mpi_sendrecv
//   mpirun -np 2 --mca btl vader,self /tmp/mpi_sendrecv 1640000
//   mpirun -np 2 --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo /tmp/mpi_sendrecv 1640000
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long sz = argc > 1 ? atol(argv[1]) : 0;
    if (sz <= 0 || sz > (1L << 30)) {
        if (r == 0) fprintf(stderr, "usage: mpirun -np N mpi_sendrecv BYTES (1 to 2^30)\n");
        MPI_Finalize();
        return 2;
    }
    char *a = malloc((size_t)sz), *b = malloc((size_t)sz);
    if (!a || !b) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(a, 1, (size_t)sz);
    memset(b, 2, (size_t)sz);
    double best = 1e9, total = 0;
    const int reps = 50;
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Sendrecv(a, (int)sz, MPI_BYTE, (r + 1) % n, 1, b, (int)sz, MPI_BYTE, (r + n - 1) % n, 1, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t;
        total += t;
        if (t < best) best = t;
    }
    if (r == 0) printf("%ld bytes: best %.3f ms, mean %.3f ms\n", sz, best * 1e3, total / reps * 1e3);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
