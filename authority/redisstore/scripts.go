package redisstore

import "github.com/redis/go-redis/v9"

// The scripts below run atomically on the server. Times are milliseconds
// of the caller's clock, passed in; a record is live while now < exp. Each
// record's server expiry is set to exp - now, so the server drops it by
// itself. Every key a script touches is passed in KEYS.

// extendIndex sets an index's expiry to that of its latest member.
const extendIndex = `
local function extend(index, now)
  local top = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')
  if top[2] then
    local ttl = tonumber(top[2]) - now
    if ttl > 0 then redis.call('PEXPIRE', index, ttl) else redis.call('DEL', index) end
  end
end
`

// putGrant: KEYS grant, index; ARGV member, uses, exp, auth, limit, now.
var putGrant = redis.NewScript(extendIndex + `
local now, exp, limit = tonumber(ARGV[6]), tonumber(ARGV[3]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local cur = redis.call('HGET', KEYS[1], 'exp')
local exists = cur and tonumber(cur) > now
if not exists then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then
    return redis.error_reply('TOOLREG_FULL')
  end
end
if exp <= now then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 'OK'
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'uses', ARGV[2], 'exp', ARGV[3], 'auth', ARGV[4])
redis.call('PEXPIRE', KEYS[1], exp - now)
redis.call('ZADD', KEYS[2], exp, ARGV[1])
extend(KEYS[2], now)
return 'OK'
`)

// useGrant: KEYS grant, index; ARGV member, now. Returns the grant's
// fields before the use, or nil.
var useGrant = redis.NewScript(`
local now = tonumber(ARGV[2])
local g = redis.call('HMGET', KEYS[1], 'uses', 'exp', 'auth')
if not g[1] then return false end
if tonumber(g[2]) <= now then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return false
end
local uses = tonumber(g[1])
if uses ~= -1 then
  if uses <= 1 then
    redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[2], ARGV[1])
  else
    redis.call('HINCRBY', KEYS[1], 'uses', -1)
  end
end
return g
`)

// openRequest: KEYS request, index, id; ARGV id, tool, args, created, exp,
// limit, now, suffix. Returns the live request for the key, or the new one.
var openRequest = redis.NewScript(extendIndex + `
local now, exp, limit = tonumber(ARGV[7]), tonumber(ARGV[5]), tonumber(ARGV[6])
local cur = redis.call('HMGET', KEYS[1], 'id', 'tool', 'args', 'state', 'created', 'exp')
if cur[1] then
  if tonumber(cur[6]) > now then return cur end
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], cur[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then
  return redis.error_reply('TOOLREG_FULL')
end
local r = {ARGV[1], ARGV[2], ARGV[3], 'pending', ARGV[4], ARGV[5]}
if exp <= now then return r end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'tool', ARGV[2], 'args', ARGV[3], 'state', 'pending', 'created', ARGV[4], 'exp', ARGV[5])
redis.call('PEXPIRE', KEYS[1], exp - now)
redis.call('SET', KEYS[3], ARGV[8], 'PX', exp - now)
redis.call('ZADD', KEYS[2], exp, ARGV[1])
extend(KEYS[2], now)
return r
`)

// resolveRequest: KEYS request, index, id; ARGV id, state, exp, now.
// Returns {"OK" or "RESOLVED", fields...}, or nil when there is no live
// request with that id.
var resolveRequest = redis.NewScript(extendIndex + `
local now, exp = tonumber(ARGV[4]), tonumber(ARGV[3])
local cur = redis.call('HMGET', KEYS[1], 'id', 'tool', 'args', 'state', 'created', 'exp')
if not cur[1] or cur[1] ~= ARGV[1] or tonumber(cur[6]) <= now then return false end
if cur[4] ~= 'pending' then
  return {'RESOLVED', cur[1], cur[2], cur[3], cur[4], cur[5], cur[6]}
end
local ttl = exp - now
if ttl < 1 then ttl = 1 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'exp', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('ZADD', KEYS[2], exp, cur[1])
extend(KEYS[2], now)
return {'OK', cur[1], cur[2], cur[3], ARGV[2], cur[5], ARGV[3]}
`)

// takeDecision: KEYS request, index; ARGV now. Removes and returns a live
// decided request, or nil; a pending one stays.
var takeDecision = redis.NewScript(`
local now = tonumber(ARGV[1])
local cur = redis.call('HMGET', KEYS[1], 'id', 'tool', 'args', 'state', 'created', 'exp')
if not cur[1] then return false end
if tonumber(cur[6]) <= now then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], cur[1])
  return false
end
if cur[4] == 'pending' then return false end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], cur[1])
return cur
`)
