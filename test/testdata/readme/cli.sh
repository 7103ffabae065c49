# A known dataset for every run, in redis-cli syntax.
cat > fixtures.txt <<'END'
SET user:1 alice
RPUSH queue job1 job2
END
miniwatchd --port "$PORT" --load fixtures.txt >miniwatchd.log &
cli="redis-cli -p $PORT --no-raw"
until $cli PING >/dev/null 2>&1; do sleep 0.1; done

# The next GET of a user:* key fails as a loading server would.
$cli DEBUG FAULT ADD CMD get KEY 'user:*' TIMES 1 ERROR "LOADING Redis is loading the dataset in memory"
$cli GET user:1
$cli GET user:1
$cli DEBUG FAULT LIST

# Time moves only when the test says so.
$cli DEBUG CLOCK FREEZE
$cli SET session x EX 60
$cli DEBUG CLOCK ADVANCE 59000
$cli TTL session
$cli SHUTDOWN NOSAVE
wait
