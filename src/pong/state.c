// state.c: the game as bytes (env_clone, env_restore) and what tools and bindings read of it
// (the RAM, the scores, where the last picture shows the objects).
#include <string.h>

#include "../util/bytes.h"
#include "cartridge.h"

void pong_ram(const Pong *g, uint8_t ram[PONG_RAM_SIZE]) { memcpy(ram, g->ram, PONG_RAM_SIZE); }

// ----------------------------------------------------------------------------
// The state as bytes: every field of Pong in declaration order, pot_resistance as 4 bytes
// little-endian. A field added to Pong must be added here (and PONG_STATE_BYTES grown).

static void picture_put(ByteWriter *w, const PongPicture *p) {
    bytes_put_u8(w, p->cpu_v);
    bytes_put_u8(w, p->agent_v);
    bytes_put_u8(w, p->cpu_mask);
    bytes_put_u8(w, p->agent_mask);
    bytes_put_u8(w, p->ball_v);
    bytes_put_u8(w, p->ball_x);
    bytes_put_u8(w, p->vdel);
    bytes_put_u8(w, p->paddle_line);
    bytes_put(w, p->digits, 4);
    bytes_put_u8(w, p->agent_digits_mask);
    bytes_put(w, p->colors, 4);
}
static void picture_get(ByteReader *r, PongPicture *p) {
    p->cpu_v = bytes_get_u8(r);
    p->agent_v = bytes_get_u8(r);
    p->cpu_mask = bytes_get_u8(r);
    p->agent_mask = bytes_get_u8(r);
    p->ball_v = bytes_get_u8(r);
    p->ball_x = bytes_get_u8(r);
    p->vdel = bytes_get_u8(r);
    p->paddle_line = bytes_get_u8(r);
    bytes_get(r, p->digits, 4);
    p->agent_digits_mask = bytes_get_u8(r);
    bytes_get(r, p->colors, 4);
}

void pong_state_save(const Pong *g, uint8_t buf[PONG_STATE_BYTES]) {
    ByteWriter w = { buf, 0 };
    bytes_put(&w, g->ram, PONG_RAM_SIZE);
    bytes_put_u8(&w, g->switches);
    bytes_put(&w, g->colors, 4);
    bytes_put_u8(&w, g->collisions);
    bytes_put_u8(&w, g->ball_x);
    bytes_put_u8(&w, g->vdel);
    picture_put(&w, &g->pic);
    bytes_put(&w, g->digits_of, 2);
    bytes_put_u8(&w, g->colors_of);
    bytes_put_u32(&w, (uint32_t)g->pot_resistance);
    bytes_put_u8(&w, g->pot_line);
    bytes_put_u8(&w, g->default_line);
    memset(buf + w.pos, 0, PONG_STATE_BYTES - w.pos);
}

void pong_state_load(Pong *g, const uint8_t buf[PONG_STATE_BYTES]) {
    ByteReader r = { buf, PONG_STATE_BYTES, 0, false };
    memset(g, 0, sizeof *g);
    bytes_get(&r, g->ram, PONG_RAM_SIZE);
    g->switches = bytes_get_u8(&r);
    bytes_get(&r, g->colors, 4);
    g->collisions = bytes_get_u8(&r);
    g->ball_x = bytes_get_u8(&r);
    g->vdel = bytes_get_u8(&r);
    picture_get(&r, &g->pic);
    bytes_get(&r, g->digits_of, 2);
    g->colors_of = bytes_get_u8(&r);
    g->pot_resistance = (int)bytes_get_u32(&r);
    g->pot_line = bytes_get_u8(&r);
    g->default_line = bytes_get_u8(&r);
}

int pong_score_cpu(const Pong *g) { return RAM(g, SCORE_CPU); }
int pong_score_agent(const Pong *g) { return RAM(g, SCORE_AGENT); }

void pong_objects(const Pong *g, PongObjects *o) {
    const PongPicture *p = &g->pic;
    o->ball_x = p->ball_x;
    o->ball_y = (int)p->ball_v - 14;
    o->ball_vx = -(int8_t)RAM(g, BALL_DX);
    o->ball_vy = (int8_t)RAM(g, BALL_DV);
    // its rows (counter - 14 .. counter - 11) reach the field, rows 34..193
    o->ball_visible = p->ball_v >= WALL_TOP_ROW1 + 1 + 11 && p->ball_v <= WALL_BOTTOM_ROW0 - 1 + 14;
    o->cpu_y = (int)p->cpu_v - 15;
    o->agent_y = (int)(p->agent_v + 1) / 2 * 2 - 14;
    o->frame = RAM(g, FRAME_HI) << 8 | RAM(g, FRAME);
}
