#!/usr/bin/env bash
# sshd.sh — a second host for the ssh sweep test: an sshd on 127.0.0.1 with its own port, host key, client
# key and config, all under DIR, logging in only as the user arenasim-sweep (made here if missing: no
# password, home /var/lib/arenasim-sweep, a login shell of bash). Needs root (sshd and useradd).
#   tests/hosts/sshd.sh start DIR [PID]  starts it; DIR/ssh_config then reaches it as host `sweephost`;
#                                        with PID, it is also stopped when that process ends (a test that
#                                        fails midway leaves no server behind)
#   tests/hosts/sshd.sh stop DIR    stops it by its pid file
set -euo pipefail
cmd=${1:?start or stop} dir=${2:?DIR} watch=${3:-}
user=arenasim-sweep
case $cmd in
stop)
    [ -f "$dir/sshd.pid" ] || exit 0
    pid=$(cat "$dir/sshd.pid")
    kill "$pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || exit 0; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
    exit 0 ;;
start) ;;
*) echo "sshd.sh: start or stop, not '$cmd'" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "sshd.sh: needs root (it starts sshd and may add the user $user)" >&2; exit 77; }
[ -x /usr/sbin/sshd ] || { echo "sshd.sh: /usr/sbin/sshd is missing (Debian's openssh-server; make test-deps)" >&2; exit 1; }
home=/var/lib/$user
id "$user" > /dev/null 2>&1 || useradd --system --home-dir "$home" --shell /bin/bash "$user"
usermod -p '*' -d "$home" "$user" # no password, yet not locked: sshd without PAM refuses a locked account
[ -d "$home" ] || { mkdir -p "$home" && chown "$user:" "$home" && chmod 700 "$home"; }
mkdir -p "$dir" /run/sshd
dir=$(cd "$dir" && pwd -P)
rm -f "$dir/host_key" "$dir/client_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys" # read by sshd as the user: DIR must let it pass
chmod 644 "$dir/authorized_keys"
# A free port: the first of a few random ones that nothing answers on.
for _ in $(seq 20); do
    port=$((20000 + RANDOM % 30000))
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && continue
    cat > "$dir/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $user
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitUserEnvironment no
MaxStartups 100
MaxSessions 100
CONF
    /usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log" < /dev/null > /dev/null 2>&1 || continue
    for _ in $(seq 50); do [ -s "$dir/sshd.pid" ] && break; sleep 0.1; done
    [ -s "$dir/sshd.pid" ] || continue
    cat > "$dir/ssh_config" <<CONF
Host sweephost
    HostName 127.0.0.1
    Port $port
    User $user
    IdentityFile $dir/client_key
    IdentitiesOnly yes
    StrictHostKeyChecking no
    UserKnownHostsFile $dir/known_hosts
    BatchMode yes
    LogLevel ERROR
CONF
    if [ -n "$watch" ]; then
        nohup bash -c 'while kill -0 "$1" 2> /dev/null; do sleep 1; done; "$2" stop "$3"' _ "$watch" "$(realpath "$0")" "$dir" \
            < /dev/null > /dev/null 2>&1 &
    fi
    echo "$port"
    exit 0
done
echo "sshd.sh: no free port found for sshd (see $dir/sshd.log)" >&2
exit 1
