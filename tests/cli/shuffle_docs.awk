# The YAML documents of a file (one-line documents after "---" lines, as
# random_cluster.awk writes them) in a random order drawn from seed.
# Usage: awk -v seed=N -f shuffle_docs.awk FILE
$0 == "---" { next }
{ doc[n++] = $0 }
END {
    srand(seed)
    for (i = n - 1; i > 0; i--) {
        j = int(rand() * (i + 1))
        t = doc[i]; doc[i] = doc[j]; doc[j] = t
    }
    for (i = 0; i < n; i++) printf "---\n%s\n", doc[i]
}
