import { asksOnly, filesWrittenBy, splitCommand, type Segment } from '../commands.js';
import { checksOnly, jobOf } from '../command-job.js';

/**
 * A segment that starts a service the run needs (a database, a cache, a container): `docker compose up -d postgres`,
 * `docker start pg`, `docker run -d … redis`, `sudo service postgresql start`, `systemctl start redis`,
 * `pg_ctl -D … start`, `pg_ctlcluster 15 main start`, `redis-server --daemonize yes`, `brew services start x`,
 * `rc-service x start`, `mysqld_safe`, and any program told to go to the background as a daemon (`epmd -daemon`,
 * `foo --daemonize`, `bar --detach`). Matched on the kind of act (a service manager's start verb, a daemon
 * option), not on a service name.
 */
export function startsService(seg: Segment): boolean {
  const t = seg.core.replace(/\s+/g, ' ');
  return (
    /^docker[- ]compose\b.*\b(up|start|run)\b/.test(t) ||
    /^docker (start|run\b.*\s(-d|--detach)\b|container start)/.test(t) ||
    /^podman(-compose)? (start|up|run\b.*\s(-d|--detach)\b)/.test(t) ||
    /^(service|rc-service) \S+ (re)?start\b/.test(t) ||
    /^systemctl (--user )?(re)?start\b/.test(t) ||
    /^(pg_ctl|pg_ctlcluster)\b.*\b(re)?start\b/.test(t) ||
    /^brew services (re)?start\b/.test(t) ||
    /^(redis-server|memcached|mongod|mysqld_safe|mysqld|minio|etcd|nats-server)\b/.test(t) ||
    /^\/etc\/init\.d\/\S+ (re)?start\b/.test(t) ||
    /^(?!git )\S+ (.* )?--?(daemon|daemonize|detach|fork)(=(yes|true|1))?( yes)?( |$)/.test(t)
  );
}

/**
 * A segment that prepares a database for the code (`bin/rails db:prepare`, `python manage.py migrate`,
 * `alembic upgrade head`, `npx prisma migrate deploy`, `mix ecto.setup`, `createdb app_test`, `airflow db migrate`,
 * `psql -c "ALTER USER …"`): like starting its
 * service, setup that a later run must do again in a fresh sandbox.
 */
export function preparesData(seg: Segment): boolean {
  const t = seg.core.replace(/\s+/g, ' ').replace(/^(bundle exec|poetry run|pipenv run|uv run|pdm run|npx|pnpm exec|yarn|pnpm|npm run|bunx|dotenv --) /, '');
  return (
    /^(bin\/)?(rails|rake) db:(create|prepare|setup|migrate|schema:load|structure:load|test:prepare|seed)\b/.test(t) ||
    /^(python3? )?(\.\/)?manage\.py (migrate|createcachetable|loaddata)\b/.test(t) ||
    /^alembic upgrade\b/.test(t) ||
    /^prisma (migrate (deploy|dev|reset)|db (push|seed))\b/.test(t) ||
    /^(sequelize(-cli)?|knex) (db:migrate|db:create|migrate:latest|seed:run)\b/.test(t) ||
    /^(flyway migrate|liquibase update|goose\b.*\bup\b|migrate\b.*\bup\b|dbmate (up|create|migrate))/.test(t) ||
    /^mix ecto\.(create|setup|migrate|reset)\b/.test(t) ||
    /^(diesel (setup|database setup|migration run)|sqlx (database (create|setup)|migrate run))\b/.test(t) ||
    /^php artisan (migrate|db:seed)\b/.test(t) ||
    /^dotnet ef database update\b/.test(t) ||
    /^(createdb|mysqladmin create)\b/.test(t) ||
    // A database client giving the role the app connects as what it needs (`ALTER USER postgres PASSWORD …`, `GRANT …`).
    /^(psql|mysql|mariadb|sqlcmd|clickhouse-client|cqlsh)\b.*(\s-f\s|<|CREATE (DATABASE|ROLE|USER|EXTENSION|SCHEMA)|ALTER (USER|ROLE|DATABASE)|GRANT\s|SET PASSWORD)/i.test(t) ||
    /^db:(create|migrate|setup|prepare|push|seed)\b/.test(t) ||
    // A tool's own metadata database (`airflow db migrate`, `superset db upgrade`, `flask db upgrade`).
    /^\S+ db (init|migrate|upgrade|create|setup|reset|push)\b/.test(t)
  );
}

/** Setup beyond packages: starting a service or preparing its data (`startsService`, `preparesData`). */
export function setsUpService(seg: Segment): boolean {
  return startsService(seg) || preparesData(seg);
}

const READ_ONLY = new Set(['ls', 'cat', 'head', 'tail', 'less', 'grep', 'egrep', 'rg', 'ag', 'pwd', 'echo', 'printf', 'which', 'type', 'whoami', 'id', 'env', 'printenv', 'ps', 'ss', 'netstat', 'lsof', 'wc', 'stat', 'file', 'du', 'df', 'tree', 'date', 'uname', 'sleep', 'true', 'diff', 'sort', 'uniq', 'jq', 'nproc', 'free', 'top', 'hostname']);
const GIT_READ_ONLY = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'blame', 'ls-files']);

/**
 * A command that only looks (`ls`, `cat`, `grep`, `git status`, `ps`): running it between a failure and an
 * identical rerun keeps the rerun identical. Anything else (a service start, an install, a write) changed the
 * environment, so a pass after it is not a flaky test.
 */
export function readOnlyCommand(cmd: string): boolean {
  if (filesWrittenBy(cmd).length > 0) return false;
  return splitCommand(cmd).every((s) => {
    if (s.program === 'cd') return true;
    if (s.program === 'git') return GIT_READ_ONLY.has(s.args[0] ?? '');
    if (s.program === 'find') return !s.args.some((a) => /^-(delete|exec|execdir|ok)$/.test(a));
    // `ghc --version`, `cmake --help`: asking a tool what it is changes nothing (`splitCommand` marks these inspect).
    return READ_ONLY.has(s.program) || (s.category === 'inspect' && asksOnly(s.args));
  });
}

/** Subcommands that only look or ask (`pulumi stack ls`, `gh auth status`, `terraform show`). */
const LOOKS = /^(ls|list|show|status|whoami|info|version|help|get|describe|inspect|view|print|env|doctor|check)$/;

/**
 * A setup step of the failing command's own tool (`pulumi plugin install …`, `pulumi login file://…` before
 * `pulumi preview`; `gcloud auth activate-service-account` before `gcloud builds submit`): the same program
 * with another subcommand that changes something, not one that only looks (`LOOKS`) nor a formatter or fixer. Such a tool has no
 * category of its own in `command-category.ts`, so without this its setup fell out of the chain.
 */
export function toolSetup(seg: Segment, target: Segment): boolean {
  // A formatter or fixer of the tool (`cargo fmt`, `mix format`) rewrote the code: a dev loop, not setup.
  if (seg.category !== 'other' || seg.program !== target.program || seg.key === target.key || (jobOf(seg) && !checksOnly(seg))) return false;
  return seg.args.some((a) => !a.startsWith('-')) && !looksOnly(seg) && !readOnlyCommand(seg.text);
}

/**
 * A tool asked to list or show something (`gcloud auth list`, `pulumi stack ls`, `kubectl get pods`): `LOOKS` in
 * its first two words. A `get` with nothing after it fetches (`cdktf get`, `terraform get` generate or download).
 */
export function looksOnly(seg: Segment): boolean {
  const words = seg.args.filter((a) => !a.startsWith('-'));
  return words.slice(0, 2).some((w, i) => LOOKS.test(w) && (w !== 'get' || i + 1 < words.length));
}
