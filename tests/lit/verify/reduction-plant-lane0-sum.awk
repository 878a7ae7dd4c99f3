# reduction-plant-lane0-sum.awk: plants a lane-0-only sum read by every lane in generated PTX, for
# the planted-defect tests of rule reduction-broadcast (a helper, not a test: lit runs .ptx/.test files only).
#
# -v mode=
#   idx    the first `shfl.sync.idx` after a shfl.down tree becomes a plain `mov` (the broadcast
#          removed); prints the line of the next instruction, the first use in every lane.
#   guard  the first guarded store after a shuffle tree loses its guard; prints its line.
#   down   every `shfl.sync.bfly` becomes `shfl.sync.down` (the butterfly's implicit broadcast
#          removed), then as guard.
# The mutated PTX goes to stdout, the expected line to stderr.
{
  line = $0
  if (mode == "down") gsub(/shfl\.sync\.bfly/, "shfl.sync.down", line)
  if (line ~ /shfl\.sync\.(down|bfly)/) tree = 1
  if (!done && tree && mode == "idx" && line ~ /shfl\.sync\.idx/) {
    split(line, f, /[ \t,;]+/)
    line = "\tmov.b32 " f[3] ", " f[4] ";"
    want = NR + 1
    done = 1
  }
  if (!done && tree && mode != "idx" && line ~ /^[ \t]*@%p[0-9]+ st\./) {
    sub(/@%p[0-9]+ /, "", line)
    want = NR
    done = 1
  }
  print line
}
END {
  if (!done) { print "reduction-plant-lane0-sum.awk: nothing to plant" > "/dev/stderr"; exit 1 }
  print want > "/dev/stderr"
}
