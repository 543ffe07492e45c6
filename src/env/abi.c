// abi.c: the table of abi.h: every struct and constant of env.h and vecenv.h that a binding
// mirrors. Add a line here when a mirrored struct gains a field.
#include "abi.h"

#include <stddef.h>

#include "env.h"
#include "vecenv.h"

#define ABI_SIZE(T) \
    { "sizeof " #T, (int64_t)sizeof(T) }
#define ABI_FIELD(T, f) \
    { #T "." #f, (int64_t)offsetof(T, f) }
#define ABI_CONST(c) \
    { #c, (int64_t)(c) }

// clang-format off
static const AbiEntry ABI[] = {
    ABI_SIZE(EnvStep),
    ABI_FIELD(EnvStep, reward), ABI_FIELD(EnvStep, terminated), ABI_FIELD(EnvStep, truncated),
    ABI_FIELD(EnvStep, frames),
    ABI_SIZE(EnvPreset),
    ABI_FIELD(EnvPreset, id), ABI_FIELD(EnvPreset, frameskip_min),
    ABI_FIELD(EnvPreset, frameskip_max), ABI_FIELD(EnvPreset, repeat_prob),
    ABI_FIELD(EnvPreset, max_steps), ABI_FIELD(EnvPreset, max_frames),
    ABI_SIZE(EnvState),
    ABI_FIELD(EnvState, ball_x), ABI_FIELD(EnvState, ball_y), ABI_FIELD(EnvState, ball_vx),
    ABI_FIELD(EnvState, ball_vy), ABI_FIELD(EnvState, ball_visible), ABI_FIELD(EnvState, cpu_y),
    ABI_FIELD(EnvState, agent_y), ABI_FIELD(EnvState, score_cpu),
    ABI_FIELD(EnvState, score_agent), ABI_FIELD(EnvState, game_frame),
    ABI_FIELD(EnvState, resistance), ABI_FIELD(EnvState, last_action), ABI_FIELD(EnvState, steps),
    ABI_FIELD(EnvState, frames), ABI_FIELD(EnvState, terminated), ABI_FIELD(EnvState, truncated),
    ABI_SIZE(VecOut),
    ABI_FIELD(VecOut, obs), ABI_FIELD(VecOut, rewards), ABI_FIELD(VecOut, terminated),
    ABI_FIELD(VecOut, truncated), ABI_FIELD(VecOut, final_obs), ABI_FIELD(VecOut, episode_return),
    ABI_FIELD(VecOut, episode_length), ABI_FIELD(VecOut, episode_frames),
    ABI_FIELD(VecOut, env_ids), ABI_FIELD(VecOut, frame_number),
    ABI_FIELD(VecOut, episode_frame_number),
    ABI_SIZE(AtariConfig),
    ABI_FIELD(AtariConfig, img_height), ABI_FIELD(AtariConfig, img_width),
    ABI_FIELD(AtariConfig, grayscale), ABI_FIELD(AtariConfig, stack_num),
    ABI_FIELD(AtariConfig, frameskip), ABI_FIELD(AtariConfig, maxpool),
    ABI_FIELD(AtariConfig, noop_max), ABI_FIELD(AtariConfig, use_fire_reset),
    ABI_FIELD(AtariConfig, episodic_life), ABI_FIELD(AtariConfig, life_loss_info),
    ABI_FIELD(AtariConfig, reward_clipping), ABI_FIELD(AtariConfig, max_frames),
    ABI_FIELD(AtariConfig, repeat_action_probability),
    ABI_SIZE(VecConfig),
    ABI_FIELD(VecConfig, num_envs), ABI_FIELD(VecConfig, num_threads), ABI_FIELD(VecConfig, obs_type),
    ABI_FIELD(VecConfig, autoreset), ABI_FIELD(VecConfig, batch_size),
    ABI_FIELD(VecConfig, thread_affinity_offset), ABI_FIELD(VecConfig, atari),
    ABI_FIELD(VecConfig, mode), ABI_FIELD(VecConfig, difficulty),
    ABI_FIELD(VecConfig, stream), ABI_FIELD(VecConfig, caller_stepped),
    ABI_CONST(ENV_OK), ABI_CONST(ENV_ERR_PRESET), ABI_CONST(ENV_ERR_ACTION),
    ABI_CONST(ENV_ERR_DONE), ABI_CONST(ENV_ERR_STATE), ABI_CONST(ENV_ERR_STATE_OTHER),
    ABI_CONST(ENV_ERR_FLAVOUR),
    ABI_CONST(VECENV_ERR_ARG),
    ABI_CONST(ENV_STATE_BYTES), ABI_CONST(ENV_STATE_STEPS_AT), ABI_CONST(ENV_STATE_FRAMES_AT),
    ABI_CONST(ENV_STATE_FRAME_NUMBER_AT), ABI_CONST(ENV_COUNT_MAX),
    ABI_CONST(VECENV_NEXT_STEP), ABI_CONST(VECENV_SAME_STEP), ABI_CONST(VECENV_DISABLED),
    ABI_CONST(OBS_RGB), ABI_CONST(OBS_GRAYSCALE), ABI_CONST(OBS_RAM), ABI_CONST(OBS_OBS80),
    {NULL, 0},
};
// clang-format on

const AbiEntry *env_abi(void) { return ABI; }
