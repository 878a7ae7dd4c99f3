# softmax-plant-stale-max.awk: plants a stale-maximum rescale in generated PTX for the planted
# defect tests of rule softmax-rescale-saved-max (a helper, not a test: lit runs .ptx/.test files only).
#
# It finds the first online-softmax rescale `sub.f32 x, old, new` (new = the destination of the
# last `max.f32 new, old, s`, or a `selp` of it; old = that max's first source) and rewrites it
# per -v mode=: self (sub x, new, new), copy (read a mov copy of new), over (overwrite old with
# new just before the read). The mutated PTX goes to stdout, the rescale's new line number to
# stderr (the line the rule must report).
function reg(s) { gsub(/[,;]/, "", s); return s }
{
  line = $0
  if (!done && $1 ~ /^max\.f32$/) { newmax = reg($2); oldmax = reg($3); safe = "" }
  if (!done && $1 ~ /^selp\.f32$/ && reg($4) == newmax) safe = reg($2)
  if (!done && newmax != "" && $1 ~ /^sub\.f32$/ && reg($3) == oldmax &&
      (reg($4) == newmax || (safe != "" && reg($4) == safe))) {
    sub_new = reg($4)
    done = 1
    if (mode == "self") {
      sub(oldmax ",", sub_new ",", line)
    } else if (mode == "copy") {
      print "\t.reg .f32 %planted_copy;"; print "\tmov.f32 %planted_copy, " newmax ";"
      out += 2
      sub(oldmax ",", "%planted_copy,", line)
    } else {
      print "\tmov.f32 " oldmax ", " newmax ";"
      out += 1
    }
    out += 1
    print line
    print out > "/dev/stderr"
    next
  }
  out += 1
  print line
}
END { if (!done) { print "softmax-plant-stale-max.awk: no rescale found" > "/dev/stderr"; exit 1 } }
