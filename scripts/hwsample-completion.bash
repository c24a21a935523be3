# SPDX-License-Identifier: MIT
# bash completion for hwsample: subcommands, options, -b backends/PMUs (from
# `hwsample list --names`), KEY= controls of the chosen backend (from
# `hwsample list --controls NAME`), config files for -c/--config, files for -o/-i,
# and the workload after `--`.
#
# Install: source this file from ~/.bashrc, or copy it to
# /usr/share/bash-completion/completions/hwsample. It runs the hwsample that is being
# completed (the first word of the line), so ./build/hwsample completes too.

_hwsample_words() { # the hwsample binary, then its arguments: print one word a line
	local bin=$1
	shift
	[[ $bin == */* ]] || bin=$(type -P "$bin" 2>/dev/null)
	[[ -x $bin ]] || return 0
	"$bin" "$@" 2>/dev/null
}

_hwsample() {
	local cur prev bin i cmd="" backend="" dashdash=-1
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	bin=${COMP_WORDS[0]}
	COMPREPLY=()

	# find the subcommand, the backend given so far and a "--"
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) dashdash=$i; break ;;
		-b | --backend) backend=${COMP_WORDS[i + 1]}; ((i++)) ;;
		-e | -F | -c | --config | --count | -C | -p | -m | -o | -i | --duration | --backend-dir)
			((i++)) ;;
		record | dump | report | list | c2c | convert | help)
			[[ -z $cmd ]] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	if ((dashdash > 0)); then
		# the workload: complete it as its own command line
		if declare -F _command_offset >/dev/null; then
			_command_offset $((dashdash + 1))
		else
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		fi
		return 0
	fi

	case $prev in
	-b | --backend)
		local pre="" last=$cur
		if [[ $cur == *,* ]]; then # a list: ibs_op,ibs_f<TAB>
			pre=${cur%,*},
			last=${cur##*,}
		fi
		mapfile -t COMPREPLY < <(compgen -P "$pre" -W "$(_hwsample_words "$bin" list --names)" -- "$last")
		return 0
		;;
	-c | --config)
		# a config file (-c NUMBER stays perf's period: nothing to complete for it)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur" | grep -E '\.(conf|ini)$'
			compgen -d -S / -- "$cur")
		compopt -o filenames -o nospace 2>/dev/null
		return 0
		;;
	-o | --output | -i | --input | --backend-dir | --to-pprof)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0
		;;
	--controls)
		mapfile -t COMPREPLY < <(compgen -W "$(_hwsample_words "$bin" list --names)" -- "$cur")
		return 0
		;;
	-e | -F | --count | -C | -p | -m | --duration)
		return 0
		;;
	esac

	if [[ -z $cmd && $COMP_CWORD -eq 1 && $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "record dump report list c2c convert help" -- "$cur")
		return 0
	fi
	case $cmd in
	help)
		mapfile -t COMPREPLY < <(compgen -W "record dump report list c2c convert" -- "$cur")
		return 0
		;;
	list)
		mapfile -t COMPREPLY < <(compgen -W "--backend --names --controls --help" -- "$cur")
		return 0
		;;
	dump)
		mapfile -t COMPREPLY < <(compgen -W "-i --json --csv --raw --limit --sym --no-sym
			--kallsyms --srcline -e --event --help" -- "$cur")
		return 0
		;;
	convert)
		mapfile -t COMPREPLY < <(compgen -W "-i --to-pprof --data-frames --no-srcline
			--kallsyms -e --event --help" -- "$cur")
		return 0
		;;
	report)
		mapfile -t COMPREPLY < <(compgen -W "-i --stdio --sort --top --ascii --unicode --no-sym
			--srcline --kallsyms -e --event --help" -- "$cur")
		return 0
		;;
	c2c)
		mapfile -t COMPREPLY < <(compgen -W "record report --help" -- "$cur")
		return 0
		;;
	esac

	# record (explicit or implied)
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "-b --backend -e --event -c --config --count -F
			-a -C -p --per-thread -m -o --overwrite -S -d --phys-data --no-inherit
			--objects --no-objects --duration --dry-run -q --no-status -N --no-buildid-cache -B --no-buildid -v --backend-dir
			--help --" -- "$cur")
		return 0
	fi
	if [[ -n $backend ]]; then
		# KEY= controls of every backend/PMU given with -b (comma lists too)
		local words="" b
		for b in ${backend//,/ }; do
			words+=" $(_hwsample_words "$bin" list --controls "$b")"
		done
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
		[[ ${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null
	fi
	return 0
}
complete -F _hwsample hwsample hwsample-static
