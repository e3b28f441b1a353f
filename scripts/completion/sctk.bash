# SPDX-License-Identifier: MIT
#
# bash completion for sctk's programs: sc-exec, sc-inspect, sc-release,
# sc-serve and sc-upload.  Options come from the program's own --help (so
# they follow the installed version); what an option's value can be, and
# the operands, from the table below.  Installed once per program under
# share/bash-completion/completions/.

# _sctk_help PROG: PROG's --help, read once per shell.
_sctk_help()
{
	local var="_sctk_help_${1//[^a-zA-Z0-9_]/_}"
	if [[ -z ${!var-} ]]; then
		printf -v "$var" '%s' "$(LC_ALL=C "$1" --help 2>/dev/null)"
	fi
	printf '%s\n' "${!var}"
}

# _sctk_options PROG: its options, one per line.
_sctk_options()
{
	_sctk_help "$1" | grep -oE -- '(^|[[ ])--?[a-zA-Z][a-z0-9-]*' |
	    sed -E 's/^[[ ]//' | grep -vE '^-[a-zA-Z]{2,}$' | sort -u
}

# _sctk_takes_arg PROG OPT: whether OPT takes a value ("--opt value" in
# the help, one space apart).
_sctk_takes_arg()
{
	_sctk_help "$1" |
	    grep -qE -- "(^|[[ ,])$2 [a-z]"
}

_sctk()
{
	local prog=${1##*/} cur prev i sub=
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The value of an option.
	if [[ $prev == -* ]] && _sctk_takes_arg "$1" "$prev"; then
		case $prog:$prev in
		*:--artifact-dir)
			mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
		*:-f | *:--file | *:-o | *:--output | *:--plan | *:--ca-file | \
		    *:--tls-cert | *:--tls-key | *:--database | *:--ready-file | \
		    *:--from-file | *:--token-file)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
		sc-exec:--format)
			mapfile -t COMPREPLY < <(compgen -W 'table vertical csv tsv jsonl arrow' -- "$cur") ;;
		sc-inspect:--format)
			mapfile -t COMPREPLY < <(compgen -W 'table tsv csv jsonl prometheus' -- "$cur") ;;
		*:--format)
			mapfile -t COMPREPLY < <(compgen -W 'text jsonl' -- "$cur") ;;
		*:--kind)
			mapfile -t COMPREPLY < <(compgen -W 'jar pyfile file archive class' -- "$cur") ;;
		*:--log-format)
			mapfile -t COMPREPLY < <(compgen -W 'text json' -- "$cur") ;;
		*:--log-level)
			mapfile -t COMPREPLY < <(compgen -W 'error warn info debug' -- "$cur") ;;
		*:--state)
			mapfile -t COMPREPLY < <(compgen -W 'pending running finished failed canceled closed' -- "$cur") ;;
		esac
		return 0
	fi

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_sctk_options "$1")" -- "$cur")
		return 0
	fi

	# Operands.
	case $prog in
	sc-inspect)
		for ((i = 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			-*) _sctk_takes_arg "$1" "${COMP_WORDS[i]}" && ((i++)) ;;
			*) sub=${COMP_WORDS[i]}; break ;;
			esac
		done
		[[ -z $sub ]] &&
		    mapfile -t COMPREPLY < <(compgen -W 'list show sessions tombstones stats watch' -- "$cur")
		;;
	sc-upload | sc-exec)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
	return 0
}

complete -o filenames -F _sctk sc-exec sc-inspect sc-release sc-serve sc-upload
