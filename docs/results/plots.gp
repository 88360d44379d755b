# gnuplot script: the scoreboard's plots, from the data files that
# scripts/results.py writes (best.dat, progression.dat). Run by scripts/plots.sh.
# The bars' labels are column 4 of progression.dat, the ratio to CUB as the
# tables print it: rounding it here again could disagree with them.
set terminal svg size 860,520 dynamic font "Helvetica,12" background "#ffffff"
set datafile missing "NaN"

# Twelve distinguishable lines: ten chapters, then CUB and the copy dashed
# (gnuplot reuses the first colours for lines past the last one defined).
set linetype 1 lc rgb "#9e9e9e" lw 2
set linetype 2 lc rgb "#8c564b" lw 2
set linetype 3 lc rgb "#e377c2" lw 2
set linetype 4 lc rgb "#bcbd22" lw 2
set linetype 5 lc rgb "#17becf" lw 2
set linetype 6 lc rgb "#ff7f0e" lw 2
set linetype 7 lc rgb "#2ca02c" lw 2
set linetype 8 lc rgb "#9467bd" lw 2
set linetype 9 lc rgb "#d62728" lw 2
set linetype 10 lc rgb "#393b79" lw 2
set linetype 11 lc rgb "#000000" lw 2 dt 2
set linetype 12 lc rgb "#1f77b4" lw 2 dt 3

set output "throughput.svg"
set title "Inclusive int32 sum on an NVIDIA H100: each chapter's best variant"
set logscale x 2
set format x "2^{%L}"
set xlabel "n (elements)"
set ylabel "effective bandwidth, GB/s (2 n sizeof(T) / time)"
set key outside right top
set grid ytics lc rgb "#dddddd"
columns = system("head -1 best.dat | grep -o '\"[^\"]*\"' | wc -l") - 1
plot for [i=2:columns+1] "best.dat" using 1:i with linespoints lt (i-1) pt 7 ps 0.6 title columnheader(i)

set output "progression.svg"
set title "The chapters at n = 2^{28} (int32 sum, H100)"
unset logscale x
set format x "%g"
set xlabel ""
set ylabel "GB/s"
set style fill solid 0.8 border -1
set boxwidth 0.7
set key off
set xtics rotate by -35 left
set yrange [0:*]
plot "progression.dat" using 0:2:xtic(1) with boxes lc rgb "#1f6fb2", \
     "" using 0:2:4 with labels offset 0,0.8 font ",10"
