// tessera-max-rss COMMAND [ARG...]: runs COMMAND and prints its peak resident memory
// ("max_rss_kib N") on stderr; exits with its status (128 + N for a signal). The
// command's peak is its own: this small process forks it, so the figure does not
// carry the memory of whatever started the measurement (as a test's own popen would).
#include <cstdio>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        std::fprintf(stderr, "usage: tessera-max-rss COMMAND [ARG...]\n");
        return 2;
    }
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        std::perror(argv[1]);
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) != pid) return 1;
    std::fprintf(stderr, "max_rss_kib %ld\n", usage.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
