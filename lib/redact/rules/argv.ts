/**
 * `argv`: command-line secrets (`--password v`, `-u user:pass`, `curl -U`, `curl -E cert:pass`,
 * `http -a`, `mysql -pSECRET`, `redis-cli -a`, `sshpass -p`, `vault login TOKEN`, `docker login -p`,
 * `twine upload -p`, `cargo login TOKEN`, `openssl -k`, `-passin pass:…`, `ldapsearch -w`,
 * `htpasswd -b`, `ssh-keygen -N`/`-P`, `cqlsh -p`, `influx -t`, `lftp -u user,pass`, `mysqladmin password v`, `bw unlock v`, `mc alias set A URL AK SK`,
 * `rclone config create NAME TYPE pass v`, `pulumi config set --secret NAME v`, what is echoed, redirected or written in a here-document into `--password-stdin`,
 * `chpasswd`, `sudo -S` or `openssl -passin fd:0`…, what a process substitution echoes into
 * `--password-file`, `--auth-user-pass`, `sshpass -f` or `-passin file:`), the values
 * given to secret stores (`gh secret set --body`, `az keyvault secret set --value`, what is piped
 * into `docker secret create`…) and to PowerShell's `ConvertTo-SecureString`, while ordinary flags
 * survive (`mkdir -p`, `sort -u`).
 */

import {
  assignmentEnd,
  closingQuote,
  closingQuoteWord,
  commandEnd,
  isOperatorAt,
  isQuote,
  pastQuote,
  quoteWordLength,
  structureClose,
  wordAt,
  wordEnd,
} from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import {
  type Found,
  firstMatch,
  isLetter,
  isOneMark,
  isPlaceholder,
  isSpace,
  skipBlanks,
  spliceFound,
} from "../scan.ts";

const LONG_FLAGS = /--(?:password|passwd|token|api-key|apikey|with-token)(?=[= ]|$)/g;
/** curl's credentials, `user:password`: `-u`/`--user`, and `-U`/`--proxy-user` for its proxy. */
const USER_FLAGS = /(?:^|\s)(?:-u|--user|-U|--proxy-user)(?=[= ])/g;
const MYSQL = /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b/;
const MYSQL_P = /(?:^|\s)-p/g;
/** Redis's CLI and its forks' (Valkey, KeyDB). */
const REDIS = /\b(?:redis|valkey|keydb)-cli\b/g;
const REDIS_A = /\s(?:-a|--pass)(?= )/g;
const SSHPASS = /\bsshpass\b/g;
const SSHPASS_P = /\s-p/g;
const VAULT = /\bvault\s+login\s+/g;
/**
 * Registry and cloud logins whose `-p` is the password (`docker login -u u -p v`, `az login -p v`),
 * spaced, assigned or attached (`-p=v`, `-pv`: Go's and Python's flag parsers take all three).
 */
const LOGIN = /\b(?:docker|podman|buildah|skopeo|nerdctl|oras|crane|az|helm\s+registry)\s+login\b/g;
const LOGIN_P = /\s-p/g;
/** OpenSSL's passphrase arguments: `-k v`, and `pass:v` after `-pass`, `-passin`, `-passout`. */
const OPENSSL = /\bopenssl\b/g;
const OPENSSL_K = /\s-k(?= )/g;
const PASS_SOURCE = /\s-pass(?:in|out)?\s+pass:/g;
/** MongoDB's shells and tools take `-p password`; SQL Server's take `-P password`. */
const MONGO = /\bmongo(?:sh|dump|restore|export|import|stat|top)?\b/g;
const MONGO_P = /\s-p(?= )/g;
const SQLCMD = /\b(?:sqlcmd|bcp|osql)\b/g;
const SQLCMD_P = /\s-P(?= )/g;
/** RabbitMQ's `add_user NAME PASSWORD` and `change_password NAME PASSWORD`. */
const RABBITMQ = /\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+/g;
/**
 * Redis's `AUTH [user] password`, in any case (clients send `auth`): after `redis-cli`, at its
 * prompt (`127.0.0.1:6379> AUTH …`), or as MONITOR prints it (`"auth" "default" "password"`, also
 * inside `"hello" "3" "auth" …`).
 */
const REDIS_AUTH = /\sAUTH[ \t]+/gi;
const MONITOR_AUTH = /"AUTH"[ \t]+/gi;
const PROMPT_AUTH = /:\d+(?:\[\d+\])?>[ \t]*AUTH[ \t]+/gi;
/** `echo v | … --password-stdin`: what is echoed into a login that reads its password from stdin. */
const ECHO = /\b(?:echo|printf)[ \t]+(?:-[a-zA-Z]+[ \t]+)*/g;
/** The same at the start of a process substitution's body (`< <(echo v)`), and `cat` fed a here-string. */
const ECHO_AT = /(?:echo|printf)[ \t]+(?:-[a-zA-Z]+[ \t]+)*|cat[ \t]*<<<[ \t]*/y;
/**
 * Input redirected from the text itself: a here-string (`<<< v`), a here-document (`<<EOF`, `<<-EOF`)
 * or a process substitution (`< <(…)`).
 */
const REDIRECTED_INPUT = /<<|<\(/g;
/** OpenLDAP's clients take the bind password as `-w v` (or `-wv`); `ldappasswd` also `-a old`, `-s new`. */
const LDAP = /\bldap(?:search|add|modify|delete|whoami|compare|modrdn|exop|passwd)\b/g;
const LDAP_W = /\s-w/g;
const LDAPPASSWD = /\bldappasswd\b/g;
const LDAPPASSWD_AS = /\s-[as]/g;
/** Archives' passwords: zip's and unzip's `-P v`, 7-Zip's `-pv` (attached only: `-p` alone prompts). */
const ZIP = /\b(?:zip|unzip)\b/g;
const ZIP_P = /\s-P/g;
const SEVEN_ZIP = /\b7z[ar]?\b/g;
const SEVEN_ZIP_P = /\s-p(?=[^\s=])/g;
/** Mosquitto's clients: `-P v`. */
const MOSQUITTO = /\bmosquitto_(?:pub|sub|rr)\b/g;
const MOSQUITTO_P = /\s-P(?= )/g;
/** `useradd -p v` and `usermod -p v` (a password hash, still a credential). */
const USERADD = /\buser(?:add|mod)\b/g;
const USERADD_P = /\s-p(?= )/g;
/**
 * ssh-keygen's passphrases: `-N new` (a new key's, or the new one of `-p`) and `-P old` (the key's
 * own), spaced or attached as getopt takes them. An empty one (`-N ''`, a key without one) is none.
 */
const SSH_KEYGEN = /\bssh-keygen\b/g;
const SSH_KEYGEN_NP = /\s-[NP]/g;
/**
 * Cassandra's `cqlsh` and NcFTP's clients: `-u user -p v` (`-pv` too; NcFTP's `-P` is its port).
 * InfluxDB's CLI (v2): `-t v` (its API token; `--token` is in `LONG_FLAGS`) and `influx setup -p v`;
 * v1's `-password v`.
 */
const CQLSH_NCFTP = /\b(?:cqlsh|ncftp(?:get|put|ls|batch)?)\b/g;
const CQLSH_NCFTP_P = /\s-p/g;
const INFLUX = /\binflux\b/g;
const INFLUX_FLAGS = /\s-(?:[tp]|password)(?=[= \t])/g;
/**
 * lftp's `-u user,password` (`--user`): the password after the comma; also `open -u user,password`
 * among the commands `-e` and `-c` give it, whose `;` ends none of lftp's.
 */
const LFTP = /\blftp\b/g;
const LFTP_U = /\s(?:-u|--user|-[ec])(?=[= \t])/g;
const LFTP_OPEN_U = /\s-u[ \t]+/g;
/** mysqladmin's `password NEW` (and `old-password NEW`): the command's argument is the new password. */
const MYSQLADMIN = /\bmysqladmin\b/g;
const MYSQLADMIN_PASSWORD = /\s(?:old-)?password(?=[ \t])/g;
/** mysqladmin's options that take the next word (MySQL's clients read options among the commands). */
const MYSQLADMIN_VALUE_FLAGS =
  /^-(?:[uhPSciw]|-(?:user|host|port|socket|count|sleep|wait|protocol|login-path|defaults-(?:extra-)?file))$/;
/** Bitwarden's CLI: its master password, `bw unlock PASSWORD`'s first argument, `bw login EMAIL PASSWORD`'s second. */
const BW_UNLOCK = /\bbw\s+unlock\b/g;
const BW_LOGIN = /\bbw\s+login\b/g;
/** bw's options that take the next word. */
const BW_VALUE_FLAGS = /^--(?:method|code|passwordenv|passwordfile|session)$/;
/** MinIO's client: `mc alias set ALIAS URL ACCESS SECRET`, as `mc config host add` had it: the fourth argument. */
const MC_ALIAS = /\bmc\s+(?:alias\s+set|config\s+host\s+add)\b/g;
/** mc's options that take the next word. */
const MC_VALUE_FLAGS = /^(?:--(?:api|path|config-dir)|-C)$/;
/**
 * rclone's `config create NAME TYPE key value…`, `config update NAME key value…` and `config password
 * NAME key value…`: the value of each key that names a secret, spaced or after `=` (`key=value`).
 */
const RCLONE_CONFIG = /\brclone\s+config\s+(?:create|update|password)(?=[ \t])/g;
/** rclone's keys that hold a secret, by their last part (`pass`, `secret_access_key`, `client_secret`, `token`). */
const RCLONE_SECRET_KEY = /(?:^|_)(?:pass(?:word2?)?|secret|token|key|credentials)$/i;
/** rclone's options that take the next word. */
const RCLONE_VALUE_FLAGS = /^--(?:config|state|result|log-file|log-level)$/;
/**
 * Pulumi's `config set NAME [--] VALUE --secret` (the flag anywhere among its words, `--secret=true`
 * too): the value, its second argument; `env set ENV PATH VALUE --secret`'s third. (`config set-all
 * --secret NAME=VALUE` is the key-value rule's.)
 */
const PULUMI_SET = /\bpulumi\s+(?:config|env)\s+set(?=[ \t])/g;
/** `--secret`, `--secret=true`, at the end of its word (`--secret"` closing a JSON string too). */
const PULUMI_SECRET = /^--secret(?:=true)?(?![\w=-])/;
/** pulumi's options that take the next word, its own and the global ones (`--plaintext`, `--path` take none). */
const PULUMI_VALUE_FLAGS =
  /^(?:-[sCv]|--(?:stack|cwd|config-file|color|type|verbose|tracing|profiling|memprofilerate|env))$/;
/** Samba's clients take `user%password` after `-U`, `-Uuser%…` or `--user=`. */
const SMB = /\b(?:smbclient|rpcclient|smbcacls|smbget|smbmap)\b/g;
const SMB_U = /\s(?:-U|--user=?)/g;
/** `htpasswd -b [file] user password`: in batch mode the password is the last argument. */
const HTPASSWD = /\bhtpasswd\b/g;
/**
 * Where a command reads a password from its standard input: what is echoed or redirected into it is
 * one. Logins read a token there (`gh auth login --with-token`, `glab auth login --stdin`, `vault
 * login -`, `cargo login` without its token); secret stores read the secret there when no value is
 * given (`gh secret set NAME`, `wrangler secret put`, `docker secret create NAME -`, `gcloud
 * secrets create|versions add … --data-file=-`, `vercel env add`); GnuPG reads its passphrase from
 * descriptor 0 (`--passphrase-fd 0`), OpenSSL its own there (`-passin fd:0`, `-passin stdin`). Two
 * are judged where found (`readerIn`): `sudo` reads its password there with `-S`, and `/dev/stdin`
 * is a secret when a flag names a secret file (`--password-file=/dev/stdin`, `-passin
 * file:/dev/stdin`).
 */
const STDIN_READERS =
  /--password-stdin|--with-token|\bchpasswd\b|\bpasswd\s+--stdin\b|\b(?:auth|vault|cargo)\s+login\b|\bsecrets?\s+(?:set|put|create|add|import)\b|\bsecrets\s+versions\s+add\b|\bvercel\s+env\s+add\b|--passphrase-fd[ =]0\b|-pass(?:in|out)?[ \t]+(?:stdin|fd:0)\b|\bsudo\b|\/dev\/stdin\b/g;
/** Where the first of `STDIN_READERS` at or after an index starts (-1: none), remembered. */
const readerAt = firstMatch(STDIN_READERS);
/**
 * sudo's short options that take a value (`-u root`, `-uroot`: in a cluster, the letters after one
 * are its value, so `-uS` runs as user `S`), and its long ones when not given after `=` (getopt
 * takes any unambiguous prefix of a long option: `--user`, `--us`). `-h` takes one only attached
 * (`-hhost`), or as a word of its own after `-h` alone.
 */
const SUDO_VALUE_LETTERS = "aCcDgpRrTtUu";
const SUDO_VALUE_OPTIONS = [
  ...["auth-type", "chdir", "chroot", "close-from", "command-timeout", "group", "host"],
  ...["login-class", "other-user", "prompt", "role", "type", "user"],
];
/** A flag's name, and a file argument's key, naming a secret (`--password-file`, `--from-file=token=`). */
const SECRET_FILE_WORDS = /pass|token|secret|key|cred|auth|netrc|cookie/;
/**
 * Flags that name a secret file without saying `file`: OpenVPN's `--auth-user-pass` (a user's line and
 * a password's) and `--askpass` (a key's passphrase); OpenSSL's `-kfile`.
 */
const SECRET_FILE_FLAGS = /^(?:--auth-user-pass|--askpass|-kfile)$/;
/** OpenSSL's passphrase flags, whose `file:` source names a secret file. */
const PASS_FLAGS = /^-pass(?:in|out)?$/;
/** sshpass and its options before its `-f` (`sshpass -f <(…)`, `sshpass -v -f …`): `-f` names its password's file. */
const SSHPASS_BEFORE = /\bsshpass(?:[ \t]+-\S+)*[ \t]+$/;
/** How far back a flag naming a secret file is looked for: longer words are none. */
const FLAG_MAX = 64;
/** How far a here-document's delimiter word is read (`EOF`, `'END_OF_TOKEN'`). */
const DELIMITER_MAX = 64;
/** Where a line break is next, real or escaped (`\n`, `\\n`: a JSON string's), remembered. */
const lineBreakAt = firstMatch(/\n|\\n/g);
/** Secret stores whose flag takes the secret itself: GitHub's `--body`/`-b`, Azure's and SSM's `--value`. */
const GH_SECRET = /\bgh\s+secret\s+set\b/g;
const GH_SECRET_BODY = /\s(?:--body|-b)(?=[= ])/g;
const STORE_VALUE = /\b(?:keyvault\s+secret\s+set|ssm\s+put-parameter)\b/g;
const STORE_VALUE_FLAG = /\s--value(?=[= ])/g;
/**
 * Package registries' uploads: twine's, Poetry's and uv's `-p` (the password of `upload`, `publish`);
 * Poetry's stored credentials, `config pypi-token.NAME TOKEN` and `config http-basic.NAME USER
 * PASSWORD`; `cargo login TOKEN` (also after a toolchain: `cargo +nightly login`); `dotnet nuget`'s
 * API keys (`push -k`, `-sk`) and a source's password (`add source … -p`), spaced or after `=` or `:`
 * as .NET's parser takes them; nuget.exe's `setapikey KEY`, in any case as Windows runs it. (RubyGems'
 * `gem push --key` names a key of its credentials file: no secret.)
 */
const UPLOAD = /\b(?:twine|poetry|uv\s+publish)\b/g;
const UPLOAD_P = /\s-p/g;
const POETRY = /\bpoetry\b/g;
const POETRY_TOKEN = /\spypi-token\.[^\s=]+/g;
const POETRY_BASIC = /\shttp-basic\.[^\s=]+/g;
const CARGO_LOGIN = /\bcargo(?:\s+\+\S+)?\s+login\b/g;
/** cargo's options that take the next word (`--registry NAME`, `-Z FLAG`, `-C DIR`). */
const CARGO_VALUE_FLAGS = /^(?:--(?:registry|color|config|index)|-[ZC])$/;
const DOTNET_NUGET = /\bdotnet\s+nuget\b/g;
const DOTNET_NUGET_KEY = /\s-(?:k|sk|p)(?=[\s=:])/g;
const NUGET_SETAPIKEY = /\bnuget(?:\.exe)?\s+setapikey\b/gi;
/** nuget.exe's options that take the next word. */
const NUGET_VALUE_FLAGS = /^-(?:source|src|configfile|verbosity)$/i;
/**
 * curl's credentials besides `-u`: a client certificate's passphrase after its name (`-E cert.pem:v`,
 * `--cert`, `--proxy-cert`), and a cookie given inline (`-b "name=v"`, `--cookie`; a word without
 * `=` names a file of cookies). Short options cluster (`-sEcert.pem:v`, `-kb name=v`). Windows runs
 * `CURL` and HTTPie's `HTTP` too: their names in any case.
 */
const CURL = /\bcurl\b/gi;
/** A short option's cluster or a long option (after its first `-`). */
const OPTION = /\s-/g;
/** curl's short options that take a value (its option table): `-E`, `-b` and the others. */
const CURL_VALUE_LETTERS = "EbKCcdDFPHhxQreXYytzTuAwmoU";
/**
 * HTTPie's (`http`, `https`) and xh's credentials: `-a user:password`, `--auth`, and a token whole
 * where the command's auth type is bearer (`-A bearer -a v`).
 */
const HTTPIE = /\b(?:https?|httpie|xhs?)(?=[ \t])/gi;
/** HTTPie's short options that take a value. */
const HTTPIE_VALUE_LETTERS = "aApPos";
/** Where `bearer` is next (an auth type), remembered. */
const bearerAt = firstMatch(/bearer/g);
/**
 * PowerShell's `ConvertTo-SecureString "v" -AsPlainText`: the string is its one positional argument,
 * or `-String`. PowerShell reads its names in any case, so the gate in `COMMAND_WORDS` does too.
 */
const SECURE_STRING = /\bConvertTo-SecureString\b/gi;
/**
 * The words that name the commands above (and OpenSSL's `pass:`), found in one native scan first:
 * most text names none of them, and each check after it is a look-up instead of a search. Grouped by
 * their first letter (`m(?:ysql|ariadb|…)`): the scan tries one branch where a word starts, not each.
 */
const COMMAND_WORDS =
  /\b(?:m(?:ysql|ariadb|ongo|osquitto|c(?=[ \t]))|(?:redis|valkey|keydb)-cli|s(?:shpass|qlcmd|tdin|udo|sh-keygen|mb|ecrets?\s+(?:set|put|create|add|import|versions)|sm)|v(?:ault|ercel)|l(?:ogin|dap|ftp)|o(?:penssl|sql)|b(?:cp|w(?=[ \t]))|r(?:abbitmqctl|clone|pcclient)|[Aa][Uu][Tt][Hh]\b|c(?:hpasswd|qlsh|argo)|p(?:assphrase-fd|ulumi|ass:|oetry|ublish)|htpasswd|zip|u(?:nzip|seradd|sermod)|7z|ncftp|influx|[Ss][Ee][Cc][Uu][Rr][Ee][Ss][Tt][Rr][Ii][Nn][Gg]|twine|[Nn][Uu][Gg][Ee][Tt]|[Cc][Uu][Rr][Ll]|[Hh][Tt][Tt][Pp](?:[Ss](?=[ \t])|[Ii][Ee]|(?=[ \t]))|[Xx][Hh][Ss]?(?=[ \t]))/g;

/** Command words looked up by one name whatever their case or fork (lower case → name). */
const ALIASES = new Map([
  ["securestring", "securestring"],
  ["nuget", "nuget"],
  ["curl", "curl"],
  ["http", "http"],
  ["https", "http"],
  ["httpie", "http"],
  ["xh", "http"],
  ["xhs", "http"],
  ["auth", "AUTH"],
  ["valkey-cli", "redis-cli"],
  ["keydb-cli", "redis-cli"],
]);

/**
 * The `COMMAND_WORDS` at the start of a word in `s` (as every regex below wants them: a word
 * boundary first lets the native scan skip the inside of words, which random text is made of).
 */
function commandWordsIn(s: string): Set<string> {
  const words = new Set<string>();
  COMMAND_WORDS.lastIndex = 0;
  for (let m = COMMAND_WORDS.exec(s); m !== null; m = COMMAND_WORDS.exec(s))
    // A secret store's verb is looked up as `secret` (`secret set`, `secrets versions add`), the
    // words written in any case or by a fork by their `ALIASES`.
    words.add(m[0].startsWith("secret") ? "secret" : (ALIASES.get(m[0].toLowerCase()) ?? m[0]));
  return words;
}

/** htpasswd's flags that take the next word: bcrypt's cost (`-C 12`) and the rounds of SHA (`-r 5000`). */
const HTPASSWD_ARGUMENT_FLAGS = /^-[a-zA-Z]*[Cr]$/;
/** A redirection ends a command's arguments (`> out`, `2>/dev/null`, `<in`). */
const REDIRECT = /^\d*[<>]/;

/**
 * After `htpasswd` (its words from `i`), the password of batch mode (`-b`, also in `-bc`, `-nbB`):
 * every argument after the user (a file comes first unless `-n`) before the command ends or is
 * redirected, and at least the last when there are two. Returns where its scan ended.
 */
function batchPassword(s: string, i: number, add: (start: number, end: number) => number): number {
  const stop = commandEnd(s, i);
  let batch = false;
  let noFile = false;
  const positional: Array<[number, number]> = [];
  for (let w = skipBlanks(s, i); w < stop; w = skipBlanks(s, w)) {
    const end = Math.min(wordEnd(s, w), stop);
    if (end <= w) break;
    const word = s.slice(w, end);
    if (REDIRECT.test(word)) break;
    if (word.startsWith("-") && word.length > 1) {
      if (/^-[a-zA-Z]+$/.test(word)) {
        if (word.includes("b")) batch = true;
        if (word.includes("n")) noFile = true;
      }
      if (HTPASSWD_ARGUMENT_FLAGS.test(word)) w = wordEnd(s, skipBlanks(s, end));
      else w = end;
      continue;
    }
    positional.push([w, end]);
    w = end;
  }
  if (!batch || positional.length < 2) return stop;
  for (let k = Math.min(positional.length - 1, noFile ? 1 : 2); k < positional.length; k++) {
    const [a, b] = positional[k]!;
    if (!isOneMark(s, a, b)) addWord(s, a, b, add);
  }
  return stop;
}

/**
 * After `ConvertTo-SecureString` (its words from `i`): the string it converts, its one positional
 * argument or the value of `-String` (PowerShell's parameters, any case; `-Key` and `-SecureKey` take
 * a value too). Returns where its scan ended.
 */
function secureStringArguments(s: string, i: number, add: (start: number, end: number) => number): number {
  const stop = commandEnd(s, i);
  for (let w = skipBlanks(s, i); w < stop; w = skipBlanks(s, w)) {
    const wordStop = wordEnd(s, w);
    let end = Math.min(wordStop, stop);
    if (end <= w) break;
    // A closing parenthesis ends the call: `(ConvertTo-SecureString "v" -AsPlainText -Force)`.
    while (end > w + 1 && s.charCodeAt(end - 1) === /* ) */ 41) end--;
    if (s.charCodeAt(w) !== /* - */ 45) {
      if (!isOneMark(s, w, end)) addWord(s, w, end, add);
    } else if (/^-(?:string|key|securekey)$/i.test(s.slice(w, end))) {
      const v = skipBlanks(s, end);
      const valueEnd = Math.min(wordEnd(s, v), stop);
      if (valueEnd > v && !isOneMark(s, v, valueEnd)) addWord(s, v, valueEnd, add);
      end = Math.max(end, valueEnd);
    }
    if (end < wordStop) return end;
    w = end;
  }
  return stop;
}

/**
 * The positional argument `n` (0: the first) of the command going on at `i` (`[start, end)`; start -1
 * when there is none, end where the search stopped): a word that starts with `-` is a flag, and the
 * next word is the value of those `valueFlags` names (not when attached: `--registry=x`); `--` and a
 * redirection end the arguments.
 */
function nthPositional(s: string, i: number, valueFlags: RegExp, n: number): [number, number] {
  const stop = commandEnd(s, i);
  let w = skipBlanks(s, i);
  for (let k = 0; w < stop; w = skipBlanks(s, w)) {
    const end = wordEnd(s, w);
    if (end <= w || isOperatorAt(s, w)) break;
    if (s.charCodeAt(w) !== /* - */ 45 && k++ < n) {
      w = end;
      continue;
    }
    if (s.charCodeAt(w) !== /* - */ 45) return isOneMark(s, w, end) ? [-1, end] : [w, end];
    const flag = s.slice(w, end);
    if (flag === "--") break;
    w = valueFlags.test(flag) ? wordEnd(s, skipBlanks(s, end)) : end;
  }
  return [-1, w];
}

/**
 * After `pulumi config set` or `pulumi env set` (its words from `i`): its argument `n` (0: the first),
 * the value, when `--secret` (or `--secret=true`) is among its words; after `--` every word is an
 * argument. Returns where its scan ended.
 */
function pulumiSecret(s: string, i: number, n: number, add: (start: number, end: number) => number): number {
  let stop = commandEnd(s, i);
  let secret = false;
  let flags = true;
  let positional = 0;
  let value = -1;
  let valueEnd = -1;
  for (let w = skipBlanks(s, i); w < stop; w = skipBlanks(s, w)) {
    const end = wordEnd(s, w);
    if (end <= w || isOperatorAt(s, w)) break;
    const word = s.slice(w, end);
    if (flags && word === "--") {
      flags = false;
      w = end;
    } else if (flags && PULUMI_SECRET.test(word)) {
      secret = true;
      w = end;
    } else if (flags && s.charCodeAt(w) === /* - */ 45) {
      w = PULUMI_VALUE_FLAGS.test(word) ? wordEnd(s, skipBlanks(s, end)) : end;
    } else {
      if (positional++ === n) [value, valueEnd] = [w, end];
      w = end;
    }
    // A value read past the command's end holds it (`"a;b"`): the command goes on.
    if (w > stop) stop = commandEnd(s, w);
  }
  if (secret && value >= 0 && !isOneMark(s, value, valueEnd)) addWord(s, value, valueEnd, add);
  return stop;
}

/**
 * After `rclone config create|update|password` (its words from `i`, `skip` positional ones before its
 * keys): the value of each key that names a secret (`pass v`, `pass=v`). Returns where its scan ended.
 */
function configSecrets(
  s: string,
  i: number,
  skip: number,
  add: (start: number, end: number) => number,
): number {
  let stop = commandEnd(s, i);
  /** A key read, awaiting its value: its word, and whether it names a secret. */
  let key = false;
  let secret = false;
  for (let w = skipBlanks(s, i); w < stop; w = skipBlanks(s, w)) {
    const end = wordEnd(s, w);
    if (end <= w || isOperatorAt(s, w)) break;
    if (s.charCodeAt(w) === /* - */ 45) {
      // A flag, wherever it is (rclone's parser takes them among the arguments: no value starts with `-`).
      if (RCLONE_VALUE_FLAGS.test(s.slice(w, end))) w = wordEnd(s, skipBlanks(s, end));
    } else if (key) {
      if (secret && !isOneMark(s, w, end)) addWord(s, w, end, add);
      key = false;
    } else if (skip > 0) {
      skip--;
    } else {
      const eq = indexIn(s, /* = */ 61, w, end);
      secret = RCLONE_SECRET_KEY.test(s.slice(w, eq < 0 ? end : eq));
      if (eq < 0) key = true;
      else if (secret && eq + 1 < end && !isOneMark(s, eq + 1, end)) addWord(s, eq + 1, end, add);
    }
    w = Math.max(w, end);
    // A value read past the command's end holds it (`pass "a;b"`): the command goes on.
    if (w > stop) stop = commandEnd(s, w);
  }
  return stop;
}

/**
 * In a cluster of short options whose letters start at `i` (`-sE v`, `-sEv`): the first letter that
 * takes a value (`valueLetters`) and where its value starts (attached, or the next word), or null.
 * Letters after it are its value (`-oE` writes to a file named `E`).
 */
function clusterValue(s: string, i: number, valueLetters: string): [letter: number, value: number] | null {
  for (let k = i; k < s.length && !isSpace(s.charCodeAt(k)); k++) {
    if (!valueLetters.includes(s[k]!)) continue;
    const v = k + 1 < s.length && !isSpace(s.charCodeAt(k + 1)) ? k + 1 : skipBlanks(s, k + 1);
    return [s.charCodeAt(k), v];
  }
  return null;
}

/** What a word `[a, b)` holds inside its quotes (`"…"`, `'…'`, `$'…'`, `\"…\"`), or itself. */
function wordContent(s: string, a: number, b: number): [number, number] {
  let from = s.charCodeAt(a) === /* $ */ 36 && s.charCodeAt(a + 1) === /* ' */ 39 ? a + 1 : a;
  while (s.charCodeAt(from) === /* backslash */ 92) from++;
  const q = s.charCodeAt(from);
  if (!isQuote(q) || from >= b - 1) return [a, b];
  let to = b;
  if (s.charCodeAt(to - 1) === q) {
    to--;
    while (to > from + 1 && s.charCodeAt(to - 1) === /* backslash */ 92) to--;
  }
  return [from + 1, to];
}

/** Two quotes around nothing, at any escaping depth (`''`, `\\"\\"`, `\\u0022\\u0022`). */
const EMPTY_QUOTES = /(\\*)(?:"\1"|'\1'|u0022\1u0022|u0027\1u0027)/iy;

/**
 * Whether the word at `v` is an empty string (`-N ''`): two quotes around nothing, not followed by
 * more of the word (`''abc`). What the word reader takes on after them is punctuation (the quote
 * that closes a JSON string holding the line, a `;`: `''` may open SQL's doubled quote).
 */
function isEmptyWord(s: string, v: number): boolean {
  EMPTY_QUOTES.lastIndex = v;
  if (!EMPTY_QUOTES.test(s)) return false;
  const c = s.charCodeAt(EMPTY_QUOTES.lastIndex);
  return !isLetter(c) && !isDigit(c);
}

/** Where `c` is first in `[a, b)`, or -1. */
function indexIn(s: string, c: number, a: number, b: number): number {
  for (let k = a; k < b; k++) if (s.charCodeAt(k) === c) return k;
  return -1;
}

/**
 * The passphrase in curl's certificate argument `[a, b)` (`cert.pem:v`): after the first colon that
 * is not a Windows drive's (`C:\\c.pem:v`); none in a PKCS#11 URI. (curl takes `\\:` as a colon of
 * the name, but a shell may have taken the backslash: that colon is read as the separator.)
 */
function certPassphrase(s: string, a: number, b: number): number {
  if (wordAt(s, a, "pkcs11:")) return -1;
  const drive =
    isLetter(s.charCodeAt(a)) &&
    s.charCodeAt(a + 1) === /* : */ 58 &&
    (s.charCodeAt(a + 2) === /* backslash */ 92 || s.charCodeAt(a + 2) === /* slash */ 47);
  const colon = indexIn(s, /* : */ 58, drive ? a + 2 : a, b);
  return colon >= 0 && colon + 1 < b ? colon + 1 : -1;
}

/** Masks the word `[a, b)`: a quoted one inside its quotes, one that goes on past them (`'ab'cd`) whole. */
function addWord(s: string, a: number, b: number, add: (start: number, end: number) => number): number {
  const q = s.charCodeAt(a);
  if ((q === /* " */ 34 || q === /* ' */ 39) && s.charCodeAt(b - 1) === q && b - a > 2)
    return add(a + 1, b - 1);
  return add(a, b);
}

/**
 * Whether one of `STDIN_READERS` starts in `[a, b)`: `sudo` only where it reads its password there
 * (`-S`), `/dev/stdin` only as a file a flag names a secret's.
 */
function readerIn(s: string, a: number, b: number): boolean {
  for (let r = readerAt(s, a); r >= 0 && r < b; r = readerAt(s, r + 1)) {
    if (wordAt(s, r, "sudo")) {
      if (sudoReadsStdin(s, r + 4, b)) return true;
    } else if (s.charCodeAt(r) !== /* slash */ 47 || namesSecretFileAt(s, r)) return true;
  }
  return false;
}

/**
 * Whether the `sudo` whose name ends at `i` reads its password from stdin: `-S` among its options,
 * alone or in a cluster (`-kS`, `-Sk`; not as a value: `-uS` runs as user `S`), or `--stdin` (or a
 * prefix getopt takes for it: `--std`). Its options end at its command (`sudo pacman -S` is
 * pacman's), at `--`, or where the command does (or at `b`); `VAR=value` and redirections among them
 * are passed. A cluster is letters: what follows them is none of its options (`-s\n…`, a JSON
 * string's line break).
 */
function sudoReadsStdin(s: string, i: number, b: number): boolean {
  if (i < s.length && !isSpace(s.charCodeAt(i))) return false;
  const stop = Math.min(commandEnd(s, i), b);
  /** Whether the word at `w` is an option's value: not one that starts another option (`-p -S`). */
  const valueAt = (w: number): boolean => w < stop && s.charCodeAt(w) !== /* - */ 45;
  for (let w = skipBlanks(s, i); w < stop; w = skipBlanks(s, w)) {
    if (isOperatorAt(s, w)) {
      w = redirectionEnd(s, w, stop);
      continue;
    }
    const end = Math.min(wordEnd(s, w), stop);
    if (end <= w) return false;
    if (s.charCodeAt(w) !== /* - */ 45) {
      // An environment variable passed on (`sudo PGPASSWORD=x -S …`); any other word is the command.
      if (s.charCodeAt(w) === /* slash */ 47 || indexIn(s, /* = */ 61, w, end) < 0) return false;
      w = end;
      continue;
    }
    if (s.charCodeAt(w + 1) === /* - */ 45) {
      // The name, to a character no name holds (`--std"` at a JSON string's close).
      let k = w + 2;
      while (k < end && (isLetter(s.charCodeAt(k)) || s.charCodeAt(k) === /* - */ 45)) k++;
      const name = s.slice(w + 2, k);
      if (k === end && name === "") return false;
      if (name.length >= 2 && "stdin".startsWith(name)) return true;
      w = end;
      const assigned = s.charCodeAt(k) === /* = */ 61;
      if (!assigned && SUDO_VALUE_OPTIONS.some((o) => o.startsWith(name)) && valueAt(skipBlanks(s, end)))
        w = wordEnd(s, skipBlanks(s, end));
      continue;
    }
    for (let k = w + 1; k < end && isLetter(s.charCodeAt(k)); k++) {
      const c = s[k]!;
      if (c === "S") return true;
      const last = k + 1 === end;
      // A value: the cluster's rest, or the next word (`-h`'s only after `-h` alone).
      if (SUDO_VALUE_LETTERS.includes(c) || (c === "h" && last && k === w + 1)) {
        const v = skipBlanks(s, end);
        if (last && valueAt(v)) w = wordEnd(s, v);
        break;
      }
      if (c === "h") break;
    }
    w = Math.max(w, end);
  }
  return false;
}

/**
 * Where a redirection at `i` ends, with its word (`<<< v`, `2>&1`, `>/dev/null`, `<<EOF`): a process
 * substitution (`< <(echo v)`) at its close.
 */
function redirectionEnd(s: string, i: number, stop: number): number {
  let k = i;
  while (k < stop && isDigit(s.charCodeAt(k))) k++;
  for (let c = s.charCodeAt(k); k < stop && (c === /* < */ 60 || c === /* > */ 62 || c === /* & */ 38); )
    c = s.charCodeAt(++k);
  if (k < stop && isSpace(s.charCodeAt(k))) k = skipBlanks(s, k);
  if (
    s.charCodeAt(k) === /* ( */ 40 ||
    (s.charCodeAt(k) === /* < */ 60 && s.charCodeAt(k + 1) === /* ( */ 40)
  ) {
    const close = structureClose(s, s.charCodeAt(k) === /* ( */ 40 ? k : k + 1);
    return close < 0 ? stop : close + 1;
  }
  return k < stop ? Math.max(k + 1, Math.min(wordEnd(s, k), stop)) : stop;
}

const isDigit = (c: number): boolean => c >= /* 0 */ 48 && c <= /* 9 */ 57;

/**
 * Whether a flag names a secret file right before `at`, where a file argument starts: the flag word
 * before it (`--password-file <(…)`), or the word it is part of (`--token-file=<(…)`,
 * `--password-file=/dev/stdin`, kubectl's `--from-file=password=/dev/stdin`). Its name ends in `file`
 * and it, or the file's key, holds a secret's word (`--passwordfile`, `--vault-password-file`,
 * `--secret-file`, `--authfile`); `--config-file`, `--profile` name none. Some name one otherwise
 * (`SECRET_FILE_FLAGS`, sshpass's `-f`), and OpenSSL's passphrase flags take it as a `file:` source
 * (`-passin file:<(…)`).
 */
function namesSecretFileAt(s: string, at: number): boolean {
  // `file:` is a word of its own's start: the flag is the word before it.
  const source = at >= 6 && s.startsWith("file:", at - 5) && isSpace(s.charCodeAt(at - 6));
  let e = source ? at - 5 : at;
  while (
    e > 0 &&
    at - e < FLAG_MAX &&
    (s.charCodeAt(e - 1) === /* space */ 32 || s.charCodeAt(e - 1) === /* tab */ 9)
  )
    e--;
  let b = e;
  while (b > 0 && e - b < FLAG_MAX && !isSpace(s.charCodeAt(b - 1))) b--;
  if ((b > 0 && !isSpace(s.charCodeAt(b - 1))) || s.charCodeAt(b) !== /* - */ 45) return false;
  const flag = s.slice(b, e).toLowerCase();
  if (source) return PASS_FLAGS.test(flag);
  if (SECRET_FILE_FLAGS.test(flag)) return true;
  if (flag === "-f") return SSHPASS_BEFORE.test(s.slice(Math.max(0, b - FLAG_MAX), b));
  const eq = flag.indexOf("=");
  return (eq < 0 ? flag : flag.slice(0, eq)).endsWith("file") && SECRET_FILE_WORDS.test(flag);
}

/** Whether a single `|` (a pipe, not `||`) is at `i`. */
const isPipeAt = (s: string, i: number): boolean =>
  s.charCodeAt(i) === /* | */ 124 && s.charCodeAt(i + 1) !== /* | */ 124;

/**
 * Whether a command ends at `i` (`;`, `|`, `&`, a line break), looking backwards; the `&` of a
 * redirection (`2>&1`, `&>`) is none.
 */
function endsCommandAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === /* & */ 38) return s.charCodeAt(i - 1) !== /* > */ 62 && s.charCodeAt(i + 1) !== /* > */ 62;
  return c === /* ; */ 59 || c === /* | */ 124 || c === /* \n */ 10;
}

/**
 * Where the words an `echo` writes from `v` end: at the pipe they go into (`|`), or where the command
 * ends without one (`echo a; b | …` echoes nothing into that pipe). A `|` inside a quoted part of a
 * word (at any escaping depth: `"a|b"`, `\\"a|b\\"`, `\\u0022a|b\\u0022`) or escaped (`a\\|b`) is one
 * of its characters; one outside is the pipe, glued or not (`echo v|…`, `echo "v"|…`).
 */
function echoEnd(s: string, v: number): number {
  for (let w = skipBlanks(s, v); w < s.length; ) {
    const end = wordEnd(s, w);
    if (end <= w) return w;
    for (let k = w; k < end; k++) {
      const c = s.charCodeAt(k);
      if (c === /* | */ 124 || c === /* ; */ 59 || c === /* & */ 38) return k;
      let q = k;
      while (s.charCodeAt(q) === /* backslash */ 92) q++;
      // A quote, or one escaped as a word (`\u0022`, a JSON string's).
      const w = q > k && !isQuote(s.charCodeAt(q)) ? quoteWordLength(s, q) : 0;
      if (isQuote(s.charCodeAt(q)) || w > 0) {
        const close =
          w > 0
            ? closingQuoteWord(s, q + w, s.slice(q, q + w).toLowerCase(), q - k)
            : closingQuote(s, q + 1, s.charCodeAt(q), q - k);
        // Quoted to the word's end.
        if (close < 0 || close >= end) break;
        k = pastQuote(s, close) - 1;
      } else {
        k = q;
      }
    }
    w = skipBlanks(s, end);
  }
  return s.length;
}

/** Whether the process substitution whose `<` is at `lt` is redirected into a command (`< <(…)`), not a file argument (`diff <(…) <(…)`). */
function isRedirectedAt(s: string, lt: number): boolean {
  let k = lt - 1;
  while (k >= 0 && (s.charCodeAt(k) === /* space */ 32 || s.charCodeAt(k) === /* tab */ 9)) k--;
  return s.charCodeAt(k) === /* < */ 60;
}

/**
 * After a process substitution's `(` at `open`, the words its `echo` or `printf` writes, up to the
 * substitution's close (or the end of its line): their start and end, and where the substitution
 * ends. Null for another substitution.
 */
function echoedIn(s: string, open: number): [number, number, number] | null {
  ECHO_AT.lastIndex = skipBlanks(s, open + 1);
  if (!ECHO_AT.test(s)) return null;
  const v = ECHO_AT.lastIndex;
  const close = structureClose(s, open);
  let end = close;
  if (close < 0) {
    const eol = s.indexOf("\n", v);
    end = eol < 0 ? s.length : eol;
  }
  const next = close < 0 ? end : close + 1;
  while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
  return [v, end, next];
}

/**
 * What a process substitution echoes as the file a flag names a secret's (`mysql --password-file
 * <(echo v)`, `--token-file=<(printf %s v)`): the command reads its secret from there.
 */
function secretFileSubstitutions(s: string, add: (start: number, end: number) => number): void {
  for (let lt = s.indexOf("<("); lt >= 0; ) {
    const echoed = namesSecretFileAt(s, lt) ? echoedIn(s, lt + 1) : null;
    if (echoed !== null && echoed[1] > echoed[0] && !isOneMark(s, echoed[0], echoed[1]))
      addWord(s, echoed[0], echoed[1], add);
    lt = s.indexOf("<(", echoed === null ? lt + 2 : echoed[2]);
  }
}

/**
 * A here-document's delimiter word after its operator (`i` past `<<`): the delimiter, whether `<<-`
 * strips its lines' leading tabs, and where the word ends; null for none. The word may be quoted
 * any way, at any escaping depth (`'EOF'`, `"EOF"`, `\"EOF\"`, `\u0022EOF\u0022`, `\EOF`): the
 * delimiter is its characters without quotes and escapes. A line break ends it, escaped too (`EOF\n`).
 */
function hereDelimiter(s: string, i: number): [delimiter: string, tabs: boolean, end: number] | null {
  const tabs = s.charCodeAt(i) === /* - */ 45;
  let k = skipBlanks(s, tabs ? i + 1 : i);
  // A tab escaped as a JSON string holds it (`<< \tEOF`) is a blank too.
  for (let q = k; s.charCodeAt(q) === /* backslash */ 92; q = k) {
    while (s.charCodeAt(q) === /* backslash */ 92) q++;
    if (s.charCodeAt(q) !== /* t */ 116) break;
    k = skipBlanks(s, q + 1);
  }
  let delimiter = "";
  const stop = Math.min(s.length, k + DELIMITER_MAX);
  for (; k < stop; k++) {
    let c = s.charCodeAt(k);
    if (isSpace(c) || ENDS_WORD.includes(s[k]!)) break;
    if (c === /* backslash */ 92) {
      let q = k;
      while (s.charCodeAt(q) === /* backslash */ 92) q++;
      c = s.charCodeAt(q);
      // An escaped line break or tab (a JSON string's) ends the word; a quote is the word's quote.
      if (c === /* n */ 110 || c === /* r */ 114 || c === /* t */ 116) break;
      const w = quoteWordLength(s, q);
      // A shell escape (`\EOF`): the character after it is the delimiter's.
      k = w > 0 ? q + w - 1 : isQuote(c) ? q : q - 1;
      continue;
    }
    if (!isQuote(c)) delimiter += s[k];
  }
  if (k === stop && k < s.length && !isSpace(s.charCodeAt(k))) return null;
  return delimiter === "" ? null : [delimiter, tabs, k];
}

/** What ends a here-document's delimiter word besides a blank: the shell's operators. */
const ENDS_WORD = "|;&<>()";

/**
 * The form of the line break at `at` (found by `lineBreakAt`): how many backslashes write it before
 * its `n` (0 for a real one; a JSON string's `\n`, `\\n` at the next depth: the lowest bit of the
 * run, whose other backslashes are literal ones before it), and where the next line starts.
 */
function breakForm(s: string, at: number): [k: number, next: number] {
  if (s.charCodeAt(at) === /* \n */ 10) return [0, at + 1];
  let b = at;
  while (b > 0 && s.charCodeAt(b - 1) === /* backslash */ 92) b--;
  const run = at + 1 - b;
  return [run & -run, at + 2];
}

/**
 * The next line break of the form `k` (`breakForm`) at or after `p`: where it starts, or -1. A run of
 * backslashes before `n` breaks a line when it is `k` more than a multiple of `2k` (the others are
 * literal backslashes before a literal `n`).
 */
function nextBreak(s: string, p: number, k: number, needle: string): number {
  if (k === 0) return s.indexOf("\n", p);
  for (let at = s.indexOf(needle, p); at >= 0; at = s.indexOf(needle, at + k + 1)) {
    let b = at;
    while (b > p && s.charCodeAt(b - 1) === /* backslash */ 92) b--;
    if ((at + k - b) % (2 * k) === k) return at;
  }
  return -1;
}

/** Whether a here-document's delimiter line ends at `q`: a line break (real or escaped), the text's end, or the quote that closes the string holding it. */
function endsLineAt(s: string, q: number): boolean {
  if (q >= s.length) return true;
  let c = s.charCodeAt(q);
  if (c === /* \n */ 10 || c === /* \r */ 13 || isQuote(c)) return true;
  if (c !== /* backslash */ 92) return false;
  while (s.charCodeAt(q) === /* backslash */ 92) q++;
  c = s.charCodeAt(q);
  return c === /* n */ 110 || c === /* r */ 114 || isQuote(c) || quoteWordLength(s, q) > 0;
}

/**
 * A here-document's body: from the line after the line break at `at` (the command's line may go on
 * past its delimiter word: `<<EOF | docker login …`) to the line break before the line that is its
 * delimiter (after tabs, for `<<-`), or the text's end. Its lines break as that first line break does
 * (real, or escaped once or more as a JSON string's message holds them). Returns the body's start and
 * end, and where the text goes on past its delimiter.
 */
function hereBody(s: string, at: number, delimiter: string, tabs: boolean): [number, number, number] {
  const [k, start] = breakForm(s, at);
  const needle = "\\".repeat(k);
  let breakAt = start;
  for (let p = start; ; ) {
    let q = p;
    // `<<-` strips leading tabs, real or escaped (`\t`).
    while (tabs && q < s.length) {
      if (s.charCodeAt(q) === /* tab */ 9) q++;
      else if (k > 0 && s.startsWith(needle, q) && s.charCodeAt(q + k) === /* t */ 116) q += k + 1;
      else break;
    }
    if (s.startsWith(delimiter, q) && endsLineAt(s, q + delimiter.length))
      return [start, p === start ? start : breakAt, q + delimiter.length];
    const next = nextBreak(s, p, k, `${needle}n`);
    if (next < 0) return [start, s.length, s.length];
    breakAt = next;
    p = next + k + 1;
  }
}

/**
 * What is redirected into a command that reads a password from its standard input (`STDIN_READERS`):
 * a here-string's word (`--password-stdin <<< v`, `chpasswd <<< "u:v"`), a here-document's body
 * (`--password-stdin <<EOF`, the lines up to `EOF`) and what a process substitution echoes
 * (`--password-stdin < <(echo v)`), wherever the redirection sits in the reader's command, or in
 * the command piped into it (`cat <<< v | docker login --password-stdin`, `cat <<EOF | …`).
 */
function redirectedInputs(s: string, add: (start: number, end: number) => number): void {
  /** The command around the redirection: where it starts and stops, and whether it reads a password. */
  let start = 0;
  let stop = -1;
  let reads = false;
  /** How far the commands' starts have been looked for (never inside an input: `<<< "a;b"`). */
  let looked = 0;
  /**
   * The line break of the last masked here-document's command, and where the text goes on past its
   * body: the body holds no command, and another here-document of that line has its body after it.
   */
  let bodiesLine = -1;
  let bodiesEnd = 0;
  /** The line break a here-document's command line ends at, found last (those after it are searched anew). */
  let hereLine = -1;
  REDIRECTED_INPUT.lastIndex = 0;
  while (REDIRECTED_INPUT.test(s)) {
    const past = REDIRECTED_INPUT.lastIndex;
    const at = past - 2;
    if (at > bodiesLine && at < bodiesEnd) {
      REDIRECTED_INPUT.lastIndex = bodiesEnd;
      continue;
    }
    // The input, `[v, end)`, and where its redirection ends.
    let [v, end, next] = [past, past, past];
    /** A here-document's delimiter, and the line break its command's line ends at (its body follows). */
    let here: [string, boolean, number] | null = null;
    let line = s.length;
    if (s.charCodeAt(past - 1) === /* ( */ 40) {
      if (isRedirectedAt(s, at)) [v, end, next] = echoedIn(s, past - 1) ?? [v, end, next];
    } else if (s.charCodeAt(past) === /* < */ 60) {
      v = skipBlanks(s, past + 1);
      end = next = wordEnd(s, v);
    } else {
      here = hereDelimiter(s, past);
      if (here !== null) {
        next = here[2];
        if (next > hereLine) hereLine = lineBreakAt(s, next);
        // No line break after it: no body (and none after a later one).
        if (hereLine < 0) hereLine = s.length;
        if (hereLine === s.length) here = null;
        else line = hereLine;
      }
    }
    if (at >= stop) {
      // Past the last command's end: at its `;` or `|`, or at a here-document's line break, escaped
      // too (no command before it is looked into again), or past a masked body.
      start = Math.max(start, stop, at >= bodiesEnd ? bodiesEnd : 0);
      for (; looked < at; looked++) if (endsCommandAt(s, looked)) start = looked + 1;
      stop = -1;
    }
    looked = Math.max(looked, next);
    // The command goes on past its input, whatever the input holds (not past a here-document's line).
    if (next > stop) {
      stop = Math.min(commandEnd(s, next), line);
      reads =
        readerIn(s, start, stop) ||
        (isPipeAt(s, stop) && readerIn(s, stop + 1, Math.min(commandEnd(s, stop + 1), line)));
    }
    if (reads && here !== null) {
      // After another here-document of the same line, this one's body follows that one's.
      const bodyAfter = line === bodiesLine ? lineBreakAt(s, bodiesEnd) : line;
      if (bodyAfter >= 0) {
        [v, end, bodiesEnd] = hereBody(s, bodyAfter, here[0], here[1]);
        bodiesLine = line;
        looked = Math.max(looked, bodiesEnd);
        if (end > v && !isOneMark(s, v, end)) add(v, end);
      }
    } else if (reads && end > v && !isOneMark(s, v, end)) addWord(s, v, end, add);
    REDIRECTED_INPUT.lastIndex = reads ? next : Math.max(next, stop);
  }
}

function argvRule(s: string): string {
  const found: Found[] = [];
  const add = (start: number, end: number): number => {
    found.push([start, end, M.argv]);
    return end;
  };
  /**
   * `--flag=value` or `--flag value`; a following flag or a redirect is not a value. Returns the end.
   * `long`: the flag is one of `LONG_FLAGS`, whose start an assignment's quote is looked for before.
   */
  const valueAfter = (j: number, long = false): number => {
    let v = j;
    const assigned = s.charCodeAt(v) === /* = */ 61;
    if (assigned) v++;
    else v = skipBlanks(s, v);
    if (v >= s.length) return j;
    const c = s.charCodeAt(v);
    if (c === /* - */ 45 || isOperatorAt(s, v)) return j;
    let end = wordEnd(s, v);
    if (isOneMark(s, v, end)) return end;
    // `["--password=a b"]`: the flag opened a quoted string, which the value runs to the close of.
    if (assigned && long && c !== /* " */ 34 && c !== /* ' */ 39) {
      // The flag's `--`: no flag name holds two dashes, and the shortest has five letters.
      const flagStart = s.lastIndexOf("--", j - 5);
      if (flagStart > 0) end = assignmentEnd(s, flagStart, v, end);
    }
    return end > v ? addWord(s, v, end, add) : j;
  };
  // No `includes("--")` first: searching a short word is slow where its first character is
  // frequent (`a-a-a-…`), the whole pattern natively is not.
  LONG_FLAGS.lastIndex = 0;
  // `test`, not `exec`: a match object per flag costs as much as reading its value on a line of them.
  while (LONG_FLAGS.test(s)) LONG_FLAGS.lastIndex = valueAfter(LONG_FLAGS.lastIndex, true);
  USER_FLAGS.lastIndex = 0;
  while (USER_FLAGS.test(s)) {
    let v = USER_FLAGS.lastIndex;
    v = s.charCodeAt(v) === /* = */ 61 ? v + 1 : skipBlanks(s, v);
    // A redirection or a command's end is no value (`sort -u <<<a:b`).
    if (isOperatorAt(s, v)) continue;
    const end = wordEnd(s, v);
    // `user:password`: a colon inside the word (not searched past it: `-u a -u a …` has none).
    let colon = v + 1;
    while (colon < end - 1 && s.charCodeAt(colon) !== /* : */ 58) colon++;
    if (colon < end - 1) USER_FLAGS.lastIndex = add(v, end);
  }
  const words = commandWordsIn(s);
  const named = (...names: string[]): boolean => names.some((n) => words.has(n));
  const mysql = named("mysql", "mariadb") ? MYSQL.exec(s) : null;
  if (mysql !== null) {
    MYSQL_P.lastIndex = mysql.index;
    while (MYSQL_P.test(s)) {
      const j = MYSQL_P.lastIndex;
      const c = s.charCodeAt(j);
      if (c === /* space */ 32) {
        // `-p value`: mysql would prompt and take a database name, but a secret may sit there.
        const v = skipBlanks(s, j);
        const end = wordEnd(s, v);
        const flagOrOperator = s.charCodeAt(v) === /* - */ 45 || isOperatorAt(s, v);
        if (end > v && !flagOrOperator && !/^\d+$/.test(s.slice(v, end))) MYSQL_P.lastIndex = add(v, end);
      } else if (j < s.length && !isSpace(c) && !isPlaceholder(c)) {
        MYSQL_P.lastIndex = add(j, wordEnd(s, j));
      }
    }
  }
  /**
   * Wherever `command` appears (every time: `docker login … && docker login …`), each `flag` up to
   * the end of that command (`;`, `&`, `|`, a line break: `docker login ok; mkdir -p /x` keeps `/x`)
   * is handed to `value` with the index past it (and where the command starts), which returns where
   * to go on. `present`: whether a word the command holds is in the text (`named`), looked up first.
   * A flag search that ran past a command answers for the commands before where it stopped, so a
   * line of commands without flags is searched once.
   */
  const eachFlagOf = (
    command: RegExp,
    flag: RegExp,
    present: boolean,
    value: (j: number, command: number) => number,
  ): void => {
    if (!present) return;
    let flagEnd = -1;
    command.lastIndex = 0;
    for (let at = command.exec(s); at !== null; at = command.exec(s)) {
      let stop = commandEnd(s, at.index);
      command.lastIndex = Math.max(command.lastIndex, stop);
      // A flag cannot straddle a command's end: one found past `stop` starts past it.
      if (flagEnd > stop) continue;
      flag.lastIndex = at.index;
      for (;;) {
        if (!flag.test(s)) return;
        if (flag.lastIndex >= stop) {
          flagEnd = flag.lastIndex;
          break;
        }
        flag.lastIndex = value(flag.lastIndex, at.index);
        // A value read past the command's end holds it (`-u "a;b" -E …`): the command goes on.
        if (flag.lastIndex > stop) {
          stop = commandEnd(s, flag.lastIndex);
          command.lastIndex = Math.max(command.lastIndex, stop);
        }
      }
    }
  };
  /** The value of each `flag` after `command` is a secret (`redis-cli -a`, `sshpass -p`). */
  const flagValuesAfter = (command: RegExp, flag: RegExp, present: boolean): void =>
    eachFlagOf(command, flag, present, (j) => valueAfter(j));
  /** `flagValuesAfter` for a flag whose value may also be attached (`-wv`, `-pv`, `-Uuser%v`). */
  const attachedValuesAfter = (command: RegExp, flag: RegExp, present: boolean): void =>
    eachFlagOf(command, flag, present, (j) => {
      const c = s.charCodeAt(j);
      if (c === /* = */ 61 || c === /* space */ 32 || c === /* tab */ 9) return valueAfter(j);
      if (j < s.length && !isSpace(c) && !isPlaceholder(c)) return add(j, wordEnd(s, j));
      return j;
    });
  flagValuesAfter(REDIS, REDIS_A, named("redis-cli"));
  flagValuesAfter(MONGO, MONGO_P, named("mongo"));
  flagValuesAfter(SQLCMD, SQLCMD_P, named("sqlcmd", "bcp", "osql"));
  // RabbitMQ's password: the one word after `add_user NAME` / `change_password NAME`.
  if (named("rabbitmqctl")) {
    RABBITMQ.lastIndex = 0;
    while (RABBITMQ.test(s)) {
      const v = RABBITMQ.lastIndex;
      const end = wordEnd(s, v);
      RABBITMQ.lastIndex = end > v && !isOneMark(s, v, end) ? add(v, end) : v;
    }
  }
  /**
   * `AUTH [user] password` from `v`: its one or two words, as typed or as MONITOR prints them
   * (`"AUTH" "user" "password"`). What follows is read by the rules that know it (`AUTH u p
   * password=a|b` must not cut `password`'s value at the pipe).
   */
  const authWords = (v: number, monitor: boolean): number => {
    const stop = commandEnd(s, v);
    let end = Math.min(wordEnd(s, v), stop);
    // Masked already (the user and the password as one): what follows is not AUTH's.
    if (isOneMark(s, v, end)) return end;
    // MONITOR quotes each word it prints: an unquoted one after the first is not AUTH's.
    const second = skipBlanks(s, end);
    if (second < stop && (!monitor || s.charCodeAt(second) === /* " */ 34))
      end = Math.min(wordEnd(s, second), stop);
    while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
    return end > v && !isOneMark(s, v, end) ? add(v, end) : v;
  };
  if (named("AUTH")) {
    MONITOR_AUTH.lastIndex = 0;
    while (MONITOR_AUTH.test(s))
      MONITOR_AUTH.lastIndex = Math.max(MONITOR_AUTH.lastIndex, authWords(MONITOR_AUTH.lastIndex, true));
    PROMPT_AUTH.lastIndex = 0;
    while (PROMPT_AUTH.test(s))
      PROMPT_AUTH.lastIndex = Math.max(PROMPT_AUTH.lastIndex, authWords(PROMPT_AUTH.lastIndex, false));
  }
  // Inside each `redis-cli` command.
  eachFlagOf(REDIS, REDIS_AUTH, named("AUTH") && named("redis-cli"), (v) => authWords(v, false));
  if (named("stdin", "chpasswd", "secret", "vercel", "login", "sudo", "passphrase-fd", "openssl")) {
    // First, so that an echo in a substitution piped on (`cat < <(echo v) | …`) is masked inside it.
    redirectedInputs(s, add);
    // What is echoed into a pipe, if a command after it reads a password from stdin.
    ECHO.lastIndex = 0;
    while (ECHO.test(s)) {
      const v = ECHO.lastIndex;
      const pipe = echoEnd(s, v);
      ECHO.lastIndex = pipe + 1;
      if (!isPipeAt(s, pipe)) continue;
      if (readerAt(s, pipe) < 0) break;
      let end = pipe;
      while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
      if (end > v && !isOneMark(s, v, end) && readerIn(s, pipe + 1, commandEnd(s, pipe + 1))) add(v, end);
    }
  }
  secretFileSubstitutions(s, add);
  attachedValuesAfter(SSHPASS, SSHPASS_P, named("sshpass"));
  attachedValuesAfter(LDAP, LDAP_W, named("ldap"));
  attachedValuesAfter(LDAPPASSWD, LDAPPASSWD_AS, named("ldap"));
  attachedValuesAfter(ZIP, ZIP_P, named("zip", "unzip"));
  attachedValuesAfter(SEVEN_ZIP, SEVEN_ZIP_P, named("7z"));
  attachedValuesAfter(SMB, SMB_U, named("smb", "rpcclient"));
  flagValuesAfter(MOSQUITTO, MOSQUITTO_P, named("mosquitto"));
  flagValuesAfter(USERADD, USERADD_P, named("useradd", "usermod"));
  attachedValuesAfter(CQLSH_NCFTP, CQLSH_NCFTP_P, named("cqlsh", "ncftp"));
  flagValuesAfter(INFLUX, INFLUX_FLAGS, named("influx"));
  /** lftp's `user,password` at `v`, its word read no further than `limit`: the password after the comma. */
  const lftpPassword = (v: number, limit: number): number => {
    const end = Math.min(wordEnd(s, v), limit);
    let [a, b] = wordContent(s, v, end);
    // The quote that closes `-e`'s commands (`-e 'open -u u,v'`) is theirs.
    if (end === limit && b === end && isQuote(s.charCodeAt(b - 1))) b--;
    const comma = indexIn(s, /* , */ 44, a, b);
    if (comma >= 0 && comma + 1 < b && !isOneMark(s, comma + 1, b)) add(comma + 1, b);
    return end;
  };
  eachFlagOf(LFTP, LFTP_U, named("lftp"), (j) => {
    const v = s.charCodeAt(j) === /* = */ 61 ? j + 1 : skipBlanks(s, j);
    if (v >= s.length || s.charCodeAt(v) === /* - */ 45 || isOperatorAt(s, v)) return j;
    if (s.charCodeAt(j - 1) === /* u */ 117 || s.charCodeAt(j - 1) === /* r */ 114)
      return lftpPassword(v, s.length);
    // `-e`/`-c`: the commands' word, read whole (the command goes on past a `;` in it).
    const end = wordEnd(s, v);
    LFTP_OPEN_U.lastIndex = v;
    while (LFTP_OPEN_U.test(s) && LFTP_OPEN_U.lastIndex < end)
      LFTP_OPEN_U.lastIndex = lftpPassword(LFTP_OPEN_U.lastIndex, end);
    return end;
  });
  eachFlagOf(SSH_KEYGEN, SSH_KEYGEN_NP, named("ssh-keygen"), (j) => {
    const c = s.charCodeAt(j);
    if (c !== /* space */ 32 && c !== /* tab */ 9)
      return j < s.length && !isSpace(c) && !isPlaceholder(c) ? add(j, wordEnd(s, j)) : j;
    const v = skipBlanks(s, j);
    if (v >= s.length || s.charCodeAt(v) === /* - */ 45 || isOperatorAt(s, v)) return j;
    const end = wordEnd(s, v);
    return isEmptyWord(s, v) || isOneMark(s, v, end) ? end : addWord(s, v, end, add);
  });
  if (named("htpasswd")) {
    HTPASSWD.lastIndex = 0;
    while (HTPASSWD.test(s)) HTPASSWD.lastIndex = batchPassword(s, HTPASSWD.lastIndex, add);
  }
  attachedValuesAfter(LOGIN, LOGIN_P, named("login"));
  attachedValuesAfter(UPLOAD, UPLOAD_P, named("twine", "poetry", "publish"));
  flagValuesAfter(POETRY, POETRY_TOKEN, named("poetry"));
  // `http-basic.NAME USER PASSWORD`: the password is the word after the user.
  eachFlagOf(POETRY, POETRY_BASIC, named("poetry"), (j) => {
    const user = skipBlanks(s, j);
    if (user >= s.length || s.charCodeAt(user) === /* - */ 45 || isOperatorAt(s, user)) return j;
    const end = wordEnd(s, user);
    // The command may end in the user's word (`http-basic.NAME ci; echo ok`).
    return commandEnd(s, user) < end ? end : valueAfter(end);
  });
  eachFlagOf(DOTNET_NUGET, DOTNET_NUGET_KEY, named("nuget"), (j) =>
    valueAfter(s.charCodeAt(j) === /* : */ 58 ? j + 1 : j),
  );
  /** The positional argument `n` after each `command` (`cargo login TOKEN`, `nuget setapikey KEY`: the first). */
  const positionalAfter = (command: RegExp, valueFlags: RegExp, present: boolean, n = 0): void => {
    if (!present) return;
    command.lastIndex = 0;
    while (command.test(s)) {
      // Blanks before an argument (`{"cmd":"cargo login"}` has none).
      const c = s.charCodeAt(command.lastIndex);
      if (c !== /* space */ 32 && c !== /* tab */ 9) continue;
      const [start, end] = nthPositional(s, command.lastIndex, valueFlags, n);
      if (start >= 0) addWord(s, start, end, add);
      command.lastIndex = Math.max(command.lastIndex, end);
    }
  };
  positionalAfter(CARGO_LOGIN, CARGO_VALUE_FLAGS, named("cargo"));
  positionalAfter(NUGET_SETAPIKEY, NUGET_VALUE_FLAGS, named("nuget"));
  positionalAfter(BW_UNLOCK, BW_VALUE_FLAGS, named("bw"));
  positionalAfter(BW_LOGIN, BW_VALUE_FLAGS, named("bw"), 1);
  positionalAfter(MC_ALIAS, MC_VALUE_FLAGS, named("mc"), 3);
  eachFlagOf(MYSQLADMIN, MYSQLADMIN_PASSWORD, named("mysql"), (j) => {
    const [start, end] = nthPositional(s, j, MYSQLADMIN_VALUE_FLAGS, 0);
    return start >= 0 ? addWord(s, start, end, add) : Math.max(j, end);
  });
  if (named("pulumi")) {
    PULUMI_SET.lastIndex = 0;
    for (let m = PULUMI_SET.exec(s); m !== null; m = PULUMI_SET.exec(s))
      PULUMI_SET.lastIndex = pulumiSecret(s, PULUMI_SET.lastIndex, m[0].includes("env") ? 2 : 1, add);
  }
  if (named("rclone")) {
    RCLONE_CONFIG.lastIndex = 0;
    while (RCLONE_CONFIG.test(s)) {
      // `create` is given the remote's name and type before its keys; the others its name.
      const skip = s.charCodeAt(RCLONE_CONFIG.lastIndex - 6) === /* c */ 99 ? 2 : 1;
      RCLONE_CONFIG.lastIndex = configSecrets(s, RCLONE_CONFIG.lastIndex, skip, add);
    }
  }
  /**
   * After an option's first `-` at `j`: the option that takes a value (in a cluster the first of
   * `valueLetters`, or the long one `longOption` codes by its name, 0 for another) and what its
   * value's word holds inside its quotes, handed to `judge`. Returns where to go on.
   */
  const optionValue = (
    j: number,
    valueLetters: string,
    judge: (option: number, a: number, b: number) => void,
    longOption: (k: number, end: number) => number,
  ): number => {
    let option: number;
    let v: number;
    if (s.charCodeAt(j) === /* - */ 45) {
      let k = j + 1;
      while (k < s.length && (isLetter(s.charCodeAt(k)) || s.charCodeAt(k) === /* - */ 45)) k++;
      option = longOption(j + 1, k);
      if (option === 0) return k;
      v = s.charCodeAt(k) === /* = */ 61 ? k + 1 : skipBlanks(s, k);
    } else {
      const found = clusterValue(s, j, valueLetters);
      if (found === null) return j;
      [option, v] = found;
    }
    if (v >= s.length || s.charCodeAt(v) === /* - */ 45 || isOperatorAt(s, v)) return v;
    const end = wordEnd(s, v);
    if (!isOneMark(s, v, end)) {
      const [a, b] = wordContent(s, v, end);
      judge(option, a, b);
    }
    return end;
  };
  /** Whether a long option's name `[k, end)` is `name`. */
  const isLong = (k: number, end: number, name: string): boolean =>
    end - k === name.length && s.startsWith(name, k);
  eachFlagOf(CURL, OPTION, named("curl"), (j) =>
    optionValue(
      j,
      CURL_VALUE_LETTERS,
      (option, a, b) => {
        if (option === /* E */ 69) {
          const passphrase = certPassphrase(s, a, b);
          if (passphrase >= 0) add(passphrase, b);
        } else if (option === /* b */ 98 && indexIn(s, /* = */ 61, a, b) >= 0) {
          add(a, b);
        }
      },
      (k, end) =>
        isLong(k, end, "cert") || isLong(k, end, "proxy-cert") ? 69 : isLong(k, end, "cookie") ? 98 : 0,
    ),
  );
  eachFlagOf(HTTPIE, OPTION, named("http"), (j, command) =>
    optionValue(
      j,
      HTTPIE_VALUE_LETTERS,
      (option, a, b) => {
        if (option !== /* a */ 97 || b <= a) return;
        // `user:password`; a token has no colon, where the command's auth type is bearer (before the
        // token or after it: the command goes on past its value, whatever the value holds).
        const bearer = bearerAt(s, command);
        if (indexIn(s, /* : */ 58, a, b) >= 0 || (bearer >= 0 && bearer < commandEnd(s, b))) add(a, b);
      },
      (k, end) => (isLong(k, end, "auth") ? 97 : 0),
    ),
  );
  flagValuesAfter(GH_SECRET, GH_SECRET_BODY, named("secret"));
  flagValuesAfter(STORE_VALUE, STORE_VALUE_FLAG, named("secret", "ssm"));
  if (named("securestring")) {
    SECURE_STRING.lastIndex = 0;
    while (SECURE_STRING.test(s))
      SECURE_STRING.lastIndex = secureStringArguments(s, SECURE_STRING.lastIndex, add);
  }
  flagValuesAfter(OPENSSL, OPENSSL_K, named("openssl"));
  if (named("pass:")) {
    PASS_SOURCE.lastIndex = 0;
    while (PASS_SOURCE.test(s)) {
      const v = PASS_SOURCE.lastIndex;
      const end = wordEnd(s, v);
      PASS_SOURCE.lastIndex = end > v && !isOneMark(s, v, end) ? add(v, end) : v;
    }
  }
  if (named("vault")) {
    VAULT.lastIndex = 0;
    while (VAULT.test(s)) {
      const v = VAULT.lastIndex;
      const end = wordEnd(s, v);
      const word = s.slice(v, end);
      if (end > v && !word.startsWith("-") && !word.includes("=") && !isOperatorAt(s, v))
        VAULT.lastIndex = add(v, end);
    }
  }
  // Several scans may find the same value.
  return spliceFound(s, found);
}

export const argv: Rule = {
  name: "argv",
  // Trigger words are grouped twelve by twelve in sorted order, capitals first, and match in any
  // case. A word that starts with three letters is hit by chance on random text (`run lower`), and
  // a group hit more than the sticky tests allow is searched natively to the text's end: the words
  // written with a capital sort into the first group so that each group holds about half of them.
  words: [
    ...["--", "-u", "-p", "-a", "vault", "rabbitmqctl", "Auth"],
    // `htpasswd -b`, `chpasswd`, `passwd --stdin`, `ldappasswd -s` and OpenLDAP's `-w`: their
    // secrets follow no flag above. Few words, and sharing first characters with the others: each
    // first character a group adds slows the confirming scan on random text.
    ...["Passwd", "-w"],
    // Secret stores fed through a pipe or a flag (`--value`: under `--`), and PowerShell's secure strings.
    ...["secret", "vercel", "securestring"],
    // `cargo login`, whose token is its argument or read from stdin; NuGet's API keys; Poetry's
    // stored credentials; curl's certificate passphrases and cookies.
    ...["Cargo", "Nuget", "Poetry", "Curl"],
    // `sudo -S`, fed its password; HTTPie's and xh's `-a` in a cluster (`http -va u:v`: no `-a` in
    // it), their options after their names (`http -`, `https -`, `xhs -`, `xh -`). Not `http`: `htt`
    // is in every URL; a blank and a dash are in no URL, nor in base64. First characters the other
    // words have, but `x`: each new one slows the confirming scan on random text.
    ...["sudo", "p -", "s -", "xh -"],
    // ssh-keygen's `-N` (its `-P` is under `-p`): not `keygen`, whose `key` is in every `A_KEY=`.
    ...["sh-keygen"],
    // InfluxDB's `-t` (`cqlsh`, NcFTP and lftp are under `-u` and `-p`): not `influx`, whose `inf`
    // is in every `INFO`.
    ...["Nflux"],
    // MinIO's `mc alias set` and rclone's `config create`, whose secrets are positional: not `mc `,
    // which ends a base64 word now and then (`mc config host add` has no word of its own).
    ...["mc alias", "rclone"],
  ],
  apply: argvRule,
};
