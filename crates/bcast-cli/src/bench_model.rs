//! The `model` group of `bcast bench`: the broadcasting and element-wise nodes of real models
//! (BERT-base, GPT-2, a LLaMA-7B-style decoder, ResNet-50, MobileNetV2, ViT-B/16, YOLOv8n,
//! Whisper-tiny), at batch 1 and at one larger batch, in f32 and f16, timed as a runtime calls
//! them: microseconds per call.
//!
//! Each call is [`PreparedOp::run`] into one reused output that has already been written: the
//! node is prepared (checked and planned) once, as a runtime prepares its nodes when it loads
//! a model and as OpenVINO and ONNX Runtime have compiled theirs before the node times
//! `benches/compare_models.py` reads; the C column there (`benches/model_bench_c.c`) times the
//! one-shot `bcast_binary`, planning included. A timed batch repeats the call for at least
//! [`BATCH_SECONDS`]; a case's batches run one after another (one untimed call first), as the
//! peers' timed loops in `benches/compare_models.py` run theirs, so a node finds its operands
//! where its own last call left them. (Cases taking turns batch by batch, as this group once
//! did, leave a large node's operands cold whatever call precedes its batch: a 25 MB add ran
//! at half the speed it runs alone, in PyTorch alike, while the peers were timed warm.) A
//! slower or faster stretch of a shared machine is spread by `compare_models.py`'s
//! interleaved rounds. Each case gets about `--budget-ms` of batches at each thread count,
//! and reports the median over its batches.
//!
//! [`MODEL_CASES`] is the one table of the group's shapes: `bcast bench --group model --list`
//! prints it as JSON lines, and `benches/compare_models.py` and `benches/model_bench_c.c` take
//! their cases from there.
//!
//! The threads of a `--threads` count are made by [`team`], the one place that turns a count
//! into the [`Parallelism`] the calls get.

use std::time::{Duration, Instant};

use bcast::{
    AutoBroadcast, BinaryOp, BroadcastError, DType, EltwiseOp, Parallelism, PreparedOp, Tensor,
};

use crate::bench::median;
use crate::bench_eltwise::operand;

/// One node of a model: an element-wise op on operands of the shapes the architecture gives.
#[derive(Debug, Clone, Copy)]
pub struct ModelCase {
    /// Name used by `--case` and joined on by `benches/compare_models.py`.
    pub name: &'static str,
    /// The model the node belongs to.
    pub model: &'static str,
    /// The op; [`BinaryOp::Select`] for a `Where`/`Select` node (operands cond, then, else).
    pub op: BinaryOp,
    /// The operands' shapes, in the op's order.
    pub shapes: &'static [&'static [usize]],
    /// Element type of the operands (Select: of then and else; the condition is boolean).
    pub dtype: DType,
    /// The auto-broadcast rule.
    pub rule: AutoBroadcast,
    /// Where the node and its shapes come from, in one line.
    pub source: &'static str,
}

const fn node(
    name: &'static str,
    model: &'static str,
    op: BinaryOp,
    shapes: &'static [&'static [usize]],
    dtype: DType,
    source: &'static str,
) -> ModelCase {
    ModelCase {
        name,
        model,
        op,
        shapes,
        dtype,
        rule: AutoBroadcast::Numpy,
        source,
    }
}

use EltwiseOp::{Add, Minimum, Multiply, Select, Subtract};
const DIVIDE: BinaryOp = EltwiseOp::Divide { pythondiv: true };
const F32: DType = DType::F32;
const F16: DType = DType::F16;

const BERT: &str = "BERT-base";
const GPT2: &str = "GPT-2";
const LLAMA: &str = "LLaMA-7B";
const RESNET: &str = "ResNet-50";
const MOBILENET: &str = "MobileNetV2";
const VIT: &str = "ViT-B/16";
const YOLO: &str = "YOLOv8n";
const WHISPER: &str = "Whisper-tiny";

/// The cases, in order. Dimensions: BERT-base hidden 768, 12 heads, FFN 3072 (transformers
/// `models/bert/modeling_bert.py`); GPT-2 hidden 768, 12 heads (`models/gpt2/modeling_gpt2.py`);
/// LLaMA-7B hidden 4096, 32 heads of 128, FFN 11008, decode at 512 keys and prefill of 512
/// tokens (`models/llama/modeling_llama.py`); ResNet-50 and MobileNetV2 at 224x224
/// (torchvision `models/resnet.py`, `models/mobilenetv2.py`); ViT-B/16 with 196 patches and
/// the class token (torchvision `models/vision_transformer.py`); YOLOv8n at 640x640, 8400
/// anchors over strides 8, 16, 32 (ultralytics `nn/modules/head.py`, `utils/tal.py`);
/// Whisper-tiny's encoder, 1500 frames of 384 (openai/whisper `whisper/model.py`). The larger
/// batch is 8 throughout.
pub const MODEL_CASES: &[ModelCase] = &[
    // BERT-base.
    node(
        "bert_s128_mask_add_f32",
        BERT,
        Add,
        &[&[1, 12, 128, 128], &[1, 1, 1, 128]],
        F32,
        "BertSelfAttention: attention_scores + extended mask [B,1,1,S] (get_extended_attention_mask)",
    ),
    node(
        "bert_s128_mask_add_f16",
        BERT,
        Add,
        &[&[1, 12, 128, 128], &[1, 1, 1, 128]],
        F16,
        "BertSelfAttention: attention_scores + extended mask [B,1,1,S], half precision",
    ),
    node(
        "bert_s128_b8_mask_add_f32",
        BERT,
        Add,
        &[&[8, 12, 128, 128], &[8, 1, 1, 128]],
        F32,
        "BertSelfAttention: attention_scores + extended mask [B,1,1,S] at batch 8",
    ),
    node(
        "bert_s128_softmax_sub_f32",
        BERT,
        Subtract,
        &[&[1, 12, 128, 128], &[1, 12, 128, 1]],
        F32,
        "softmax(scores, -1) decomposed: scores - ReduceMax(scores, -1, keepdims)",
    ),
    node(
        "bert_s384_mask_add_f32",
        BERT,
        Add,
        &[&[1, 12, 384, 384], &[1, 1, 1, 384]],
        F32,
        "BertSelfAttention: attention_scores + extended mask [B,1,1,S], sequence 384",
    ),
    node(
        "bert_s384_softmax_sub_f16",
        BERT,
        Subtract,
        &[&[1, 12, 384, 384], &[1, 12, 384, 1]],
        F16,
        "softmax(scores, -1) decomposed: scores - ReduceMax(scores, -1, keepdims), sequence 384",
    ),
    node(
        "bert_s128_ln_center_f32",
        BERT,
        Subtract,
        &[&[1, 128, 768], &[1, 128, 1]],
        F32,
        "LayerNorm decomposed (ONNX before opset 17): x - ReduceMean(x, -1, keepdims)",
    ),
    node(
        "bert_s128_ln_rstd_f32",
        BERT,
        Multiply,
        &[&[1, 128, 768], &[1, 128, 1]],
        F32,
        "LayerNorm decomposed: (x - mean) * rsqrt(var + eps) [B,S,1]",
    ),
    node(
        "bert_s128_ln_gamma_f16",
        BERT,
        Multiply,
        &[&[1, 128, 768], &[768]],
        F16,
        "LayerNorm decomposed: normalised * gamma [768]",
    ),
    node(
        "bert_s128_ln_beta_f32",
        BERT,
        Add,
        &[&[1, 128, 768], &[768]],
        F32,
        "LayerNorm decomposed: ... + beta [768]",
    ),
    node(
        "bert_s128_ffn_bias_f32",
        BERT,
        Add,
        &[&[1, 128, 3072], &[3072]],
        F32,
        "BertIntermediate: Linear(768, 3072) as MatMul + bias [3072], before GELU",
    ),
    node(
        "bert_s128_b8_ffn_bias_f16",
        BERT,
        Add,
        &[&[8, 128, 3072], &[3072]],
        F16,
        "BertIntermediate: MatMul + bias [3072] before GELU at batch 8",
    ),
    node(
        "bert_s384_residual_f32",
        BERT,
        Add,
        &[&[1, 384, 768], &[1, 384, 768]],
        F32,
        "BertSelfOutput: LayerNorm(hidden_states + input_tensor), the residual add",
    ),
    // GPT-2.
    node(
        "gpt2_s256_causal_select_f32",
        GPT2,
        Select,
        &[&[1, 1, 256, 256], &[1, 12, 256, 256], &[]],
        F32,
        "GPT2Attention._attn: torch.where(bias[:, :, K-S:K, :K] [1,1,S,S], attn_weights, mask_value)",
    ),
    node(
        "gpt2_s256_causal_select_f16",
        GPT2,
        Select,
        &[&[1, 1, 256, 256], &[1, 12, 256, 256], &[]],
        F16,
        "GPT2Attention._attn: the causal torch.where, half precision",
    ),
    node(
        "gpt2_s256_b8_causal_select_f32",
        GPT2,
        Select,
        &[&[1, 1, 256, 256], &[8, 12, 256, 256], &[]],
        F32,
        "GPT2Attention._attn: the causal torch.where at batch 8 (the mask stays [1,1,S,S])",
    ),
    node(
        "gpt2_decode_causal_select_f32",
        GPT2,
        Select,
        &[&[1, 1, 1, 257], &[1, 12, 1, 257], &[]],
        F32,
        "GPT2Attention._attn with a KV cache: one query row against 257 keys",
    ),
    // LLaMA-7B-style decoder: decode (one token, 512 keys) and prefill (512 tokens).
    node(
        "llama_decode_rmsnorm_rstd_f16",
        LLAMA,
        Multiply,
        &[&[1, 1, 4096], &[1, 1, 1]],
        F16,
        "LlamaRMSNorm: hidden_states * torch.rsqrt(variance + eps) [B,S,1]",
    ),
    node(
        "llama_decode_rmsnorm_weight_f16",
        LLAMA,
        Multiply,
        &[&[4096], &[1, 1, 4096]],
        F16,
        "LlamaRMSNorm: self.weight [4096] * hidden_states",
    ),
    node(
        "llama_decode_rotary_cos_f16",
        LLAMA,
        Multiply,
        &[&[1, 32, 1, 128], &[1, 1, 1, 128]],
        F16,
        "apply_rotary_pos_emb: q * cos.unsqueeze(1) [B,1,S,128]",
    ),
    node(
        "llama_decode_mask_add_f16",
        LLAMA,
        Add,
        &[&[1, 32, 1, 512], &[1, 1, 1, 512]],
        F16,
        "eager_attention_forward: attn_weights + causal_mask [B,1,S,K]",
    ),
    node(
        "llama_decode_swiglu_f16",
        LLAMA,
        Multiply,
        &[&[1, 1, 11008], &[1, 1, 11008]],
        F16,
        "LlamaMLP: act_fn(gate_proj(x)) * up_proj(x)",
    ),
    node(
        "llama_decode_residual_f16",
        LLAMA,
        Add,
        &[&[1, 1, 4096], &[1, 1, 4096]],
        F16,
        "LlamaDecoderLayer: hidden_states = residual + hidden_states",
    ),
    node(
        "llama_decode_residual_f32",
        LLAMA,
        Add,
        &[&[1, 1, 4096], &[1, 1, 4096]],
        F32,
        "LlamaDecoderLayer: residual + hidden_states, single precision",
    ),
    node(
        "llama_decode_b8_mask_add_f16",
        LLAMA,
        Add,
        &[&[8, 32, 1, 512], &[8, 1, 1, 512]],
        F16,
        "eager_attention_forward: attn_weights + causal_mask at batch 8",
    ),
    node(
        "llama_decode_b8_swiglu_f16",
        LLAMA,
        Multiply,
        &[&[8, 1, 11008], &[8, 1, 11008]],
        F16,
        "LlamaMLP: act_fn(gate_proj(x)) * up_proj(x) at batch 8",
    ),
    node(
        "llama_prefill_rmsnorm_rstd_f16",
        LLAMA,
        Multiply,
        &[&[1, 512, 4096], &[1, 512, 1]],
        F16,
        "LlamaRMSNorm: hidden_states * torch.rsqrt(variance + eps), 512 tokens",
    ),
    node(
        "llama_prefill_rotary_cos_f16",
        LLAMA,
        Multiply,
        &[&[1, 32, 512, 128], &[1, 1, 512, 128]],
        F16,
        "apply_rotary_pos_emb: q * cos.unsqueeze(1), 512 tokens",
    ),
    node(
        "llama_prefill_mask_add_f16",
        LLAMA,
        Add,
        &[&[1, 32, 512, 512], &[1, 1, 512, 512]],
        F16,
        "eager_attention_forward: attn_weights + causal_mask [B,1,S,K], 512 tokens",
    ),
    node(
        "llama_prefill_swiglu_f16",
        LLAMA,
        Multiply,
        &[&[1, 512, 11008], &[1, 512, 11008]],
        F16,
        "LlamaMLP: act_fn(gate_proj(x)) * up_proj(x), 512 tokens",
    ),
    node(
        "llama_prefill_residual_f32",
        LLAMA,
        Add,
        &[&[1, 512, 4096], &[1, 512, 4096]],
        F32,
        "LlamaDecoderLayer: residual + hidden_states, 512 tokens",
    ),
    // ResNet-50.
    node(
        "resnet50_input_sub_f32",
        RESNET,
        Subtract,
        &[&[1, 3, 224, 224], &[1, 3, 1, 1]],
        F32,
        "input normalisation (transforms.Normalize in the graph): x - mean [1,3,1,1]",
    ),
    node(
        "resnet50_input_div_f32",
        RESNET,
        DIVIDE,
        &[&[1, 3, 224, 224], &[1, 3, 1, 1]],
        F32,
        "input normalisation: (x - mean) / std [1,3,1,1]",
    ),
    node(
        "resnet50_bn_scale_f32",
        RESNET,
        Multiply,
        &[&[1, 64, 112, 112], &[1, 64, 1, 1]],
        F32,
        "conv1's BatchNorm2d unfolded: x * scale [1,C,1,1]",
    ),
    node(
        "resnet50_bn_shift_f16",
        RESNET,
        Add,
        &[&[1, 64, 112, 112], &[1, 64, 1, 1]],
        F16,
        "conv1's BatchNorm2d unfolded: ... + shift [1,C,1,1], half precision",
    ),
    node(
        "resnet50_layer1_residual_f32",
        RESNET,
        Add,
        &[&[1, 256, 56, 56], &[1, 256, 56, 56]],
        F32,
        "Bottleneck: out += identity, layer1",
    ),
    node(
        "resnet50_layer4_residual_f16",
        RESNET,
        Add,
        &[&[1, 2048, 7, 7], &[1, 2048, 7, 7]],
        F16,
        "Bottleneck: out += identity, layer4, half precision",
    ),
    node(
        "resnet50_b8_layer1_residual_f32",
        RESNET,
        Add,
        &[&[8, 256, 56, 56], &[8, 256, 56, 56]],
        F32,
        "Bottleneck: out += identity, layer1 at batch 8",
    ),
    // MobileNetV2.
    node(
        "mobilenetv2_c24_residual_f32",
        MOBILENET,
        Add,
        &[&[1, 24, 56, 56], &[1, 24, 56, 56]],
        F32,
        "InvertedResidual (use_res_connect): x + self.conv(x), the 24-channel stage",
    ),
    node(
        "mobilenetv2_c160_residual_f16",
        MOBILENET,
        Add,
        &[&[1, 160, 7, 7], &[1, 160, 7, 7]],
        F16,
        "InvertedResidual (use_res_connect): x + self.conv(x), the 160-channel stage",
    ),
    node(
        "mobilenetv2_relu6_min_f32",
        MOBILENET,
        Minimum,
        &[&[1, 96, 112, 112], &[]],
        F32,
        "ReLU6 as Minimum(x, 6) after the expansion of the second block (16 x 6 channels)",
    ),
    // ViT-B/16.
    node(
        "vit_b16_pos_add_f32",
        VIT,
        Add,
        &[&[1, 197, 768], &[1, 197, 768]],
        F32,
        "Encoder.forward: input + self.pos_embedding [1,197,768]",
    ),
    node(
        "vit_b16_b8_pos_add_f16",
        VIT,
        Add,
        &[&[8, 197, 768], &[1, 197, 768]],
        F16,
        "Encoder.forward: input + self.pos_embedding [1,197,768] at batch 8",
    ),
    node(
        "vit_b16_softmax_sub_f32",
        VIT,
        Subtract,
        &[&[1, 12, 197, 197], &[1, 12, 197, 1]],
        F32,
        "softmax(scores, -1) decomposed over 197 tokens: scores - ReduceMax(scores, -1)",
    ),
    // YOLOv8n.
    node(
        "yolov8n_silu_mul_f32",
        YOLO,
        Multiply,
        &[&[1, 16, 320, 320], &[1, 16, 320, 320]],
        F32,
        "Conv's SiLU as exported: x * Sigmoid(x), the stem's 16 x 320 x 320 map",
    ),
    node(
        "yolov8n_silu_mul_f16",
        YOLO,
        Multiply,
        &[&[1, 16, 320, 320], &[1, 16, 320, 320]],
        F16,
        "Conv's SiLU as exported: x * Sigmoid(x), half precision",
    ),
    node(
        "yolov8_box_stride_mul_f32",
        YOLO,
        Multiply,
        &[&[1, 4, 8400], &[1, 8400]],
        F32,
        "Detect._inference: decode_bboxes(...) * self.strides [1,8400]",
    ),
    node(
        "yolov8_anchor_sub_f32",
        YOLO,
        Subtract,
        &[&[1, 2, 8400], &[1, 2, 8400]],
        F32,
        "dist2bbox: x1y1 = anchor_points [1,2,8400] - lt",
    ),
    // Whisper-tiny encoder.
    node(
        "whisper_tiny_pos_add_f32",
        WHISPER,
        Add,
        &[&[1, 1500, 384], &[1500, 384]],
        F32,
        "AudioEncoder.forward: x + self.positional_embedding [1500,384]",
    ),
    node(
        "whisper_tiny_pos_add_f16",
        WHISPER,
        Add,
        &[&[1, 1500, 384], &[1500, 384]],
        F16,
        "AudioEncoder.forward: x + self.positional_embedding, half precision",
    ),
    node(
        "whisper_tiny_b8_pos_add_f32",
        WHISPER,
        Add,
        &[&[8, 1500, 384], &[1500, 384]],
        F32,
        "AudioEncoder.forward: x + self.positional_embedding at batch 8",
    ),
];

/// The case called `name`.
pub fn find_model(name: &str) -> Option<&'static ModelCase> {
    MODEL_CASES.iter().find(|c| c.name == name)
}

/// The least time a timed batch repeats its call for, so that the clock's resolution and the
/// cost of reading it do not show in a call of a microsecond.
pub const BATCH_SECONDS: f64 = 2e-3;

/// The fewest timed batches a case gets, whatever the budget.
const MIN_BATCHES: usize = 5;

/// The most timed batches a case gets, whatever the budget.
const MAX_BATCHES: usize = 201;

/// The threads of one `--threads` count, as the model group hands them to bcast.
pub struct Team {
    threads: usize,
    team: Option<bcast::exec::Team>,
}

/// The threads for a count: the one place the model group turns a thread count into what its
/// calls get ([`Team::parallelism`]). One is the calling thread alone (`Parallelism::Serial`,
/// as the C ABI's `threads = 1`); more is a team of bcast's own of that many threads (the
/// caller and its workers, which spin between calls as a runtime's would), as the C ABI's
/// `threads = N` runs on.
///
/// # Errors
/// A count of 0, or a team that cannot be started.
pub fn team(threads: usize) -> Result<Team, String> {
    let team = match threads {
        0 => return Err("a thread count must be at least 1".into()),
        1 => None,
        n => Some(
            bcast::exec::TeamBuilder::new(n)
                .build()
                .map_err(|e| format!("cannot start {n} threads: {e}"))?,
        ),
    };
    Ok(Team { threads, team })
}

impl Team {
    /// What every call of the group gets.
    pub fn parallelism(&self) -> Parallelism<'_> {
        match &self.team {
            Some(team) => Parallelism::Team(team),
            None => Parallelism::Serial,
        }
    }

    /// The thread count the team was made for.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

impl ModelCase {
    /// The output's shape.
    ///
    /// # Errors
    /// Shapes that break the rule (a bug in the table).
    pub fn out_shape(&self) -> Result<Vec<usize>, BroadcastError> {
        bcast::eltwise_output_shape(self.op, self.shapes, &self.rule)
    }

    /// The output's element type (boolean for a comparison; the operands' otherwise).
    ///
    /// # Errors
    /// A type the op does not take (a bug in the table).
    pub fn out_dtype(&self) -> Result<DType, BroadcastError> {
        match self.op {
            BinaryOp::Select => Ok(self.dtype),
            op => op.output_dtype(self.dtype),
        }
    }

    /// The operands: non-zero values that differ along each operand (Select's condition
    /// alternates, so both branches are taken).
    pub fn inputs(&self) -> Vec<Tensor> {
        self.shapes
            .iter()
            .enumerate()
            .map(|(j, shape)| {
                let dtype = match (self.op, j) {
                    (BinaryOp::Select, 0) => DType::Bool,
                    _ => self.dtype,
                };
                operand(shape, dtype, 3 * j)
            })
            .collect()
    }

    /// Runs the case into a new tensor on the calling thread.
    ///
    /// # Errors
    /// Whatever the op says.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Tensor, BroadcastError> {
        let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
        bcast::eltwise_view(self.op, &views, &self.rule, Parallelism::Serial)
    }

    /// Runs the case into `out` with the threads of `par`: the call the group times.
    ///
    /// # Errors
    /// Whatever the op says.
    pub fn run_into(
        &self,
        inputs: &[Tensor],
        out: &mut Tensor,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        match inputs {
            [a, b] => bcast::binary_into_with(self.op, a, b, &self.rule, out, par),
            _ => bcast::eltwise_into_with(
                self.op,
                &inputs.iter().collect::<Vec<_>>(),
                &self.rule,
                out,
                par,
            ),
        }
    }

    /// The case prepared for its operands' types and shapes, as a runtime prepares a node when
    /// it loads the model: checked and planned once, run on each call.
    ///
    /// # Errors
    /// Whatever the op says of these operands.
    pub fn prepare(&self) -> Result<PreparedOp, BroadcastError> {
        let inputs = self.inputs();
        let operands: Vec<(DType, &[usize])> =
            inputs.iter().map(|t| (t.dtype(), t.shape())).collect();
        PreparedOp::new(self.op, &operands, &self.rule)
    }

    /// The case as `--list` prints it: one JSON object with everything a peer needs to build
    /// the same node (the op by its bcast name, C code, OpenVINO and ONNX types).
    ///
    /// # Errors
    /// Shapes or types the op does not take (a bug in the table).
    pub fn describe(&self) -> Result<serde_json::Value, BroadcastError> {
        let out_shape = self.out_shape()?;
        let out_dtype = self.out_dtype()?;
        let axis = match self.rule {
            AutoBroadcast::Pdpd { axis } => axis,
            _ => -1,
        };
        Ok(serde_json::json!({
            "case": self.name,
            "model": self.model,
            "op": self.op.name(),
            "c_code": self.op.c_code(),
            "openvino": self.op.openvino_type(),
            "onnx": self.op.onnx_type(),
            "shapes": self.shapes,
            "dtype": self.dtype.name(),
            "rule": self.rule.name(),
            "axis": axis,
            "out_shape": out_shape,
            "out_dtype": out_dtype.name(),
            "bytes": out_shape.iter().product::<usize>() * out_dtype.size(),
            "source": self.source,
        }))
    }
}

/// What `bcast bench --group model` reports for one case at one thread count.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelMeasurement {
    /// Always `"model"`, so the group's lines can be told from the others'.
    pub group: &'static str,
    /// Case name.
    pub case: &'static str,
    /// The model the node belongs to.
    pub model: &'static str,
    /// The op's bcast name.
    pub op: &'static str,
    /// Element type of the operands.
    pub dtype: &'static str,
    /// The operands' shapes.
    pub shapes: &'static [&'static [usize]],
    /// The output's shape.
    pub out_shape: Vec<usize>,
    /// Output bytes.
    pub bytes: usize,
    /// The thread count.
    pub threads: usize,
    /// Median microseconds per call over the timed batches.
    pub us_per_call: f64,
    /// Calls per timed batch.
    pub batch: usize,
    /// Timed batches.
    pub batches: usize,
}

/// One case made ready: operands, a written output, and its batch and batch count.
struct Prepared<'a> {
    case: &'a ModelCase,
    inputs: Vec<Tensor>,
    out: Tensor,
    batch: usize,
    batches: usize,
    samples: Vec<f64>,
}

/// Seconds per call over `calls` calls of `f`.
fn time_calls(
    calls: usize,
    mut f: impl FnMut() -> Result<(), BroadcastError>,
) -> Result<f64, BroadcastError> {
    let start = Instant::now();
    for _ in 0..calls {
        f()?;
    }
    Ok(start.elapsed().as_secs_f64() / calls.max(1) as f64)
}

/// How to time a call of about `one_call` seconds within `budget`: (calls per batch, batches).
/// A batch lasts at least [`BATCH_SECONDS`].
pub fn model_schedule(one_call: f64, budget: Duration) -> (usize, usize) {
    let one_call = one_call.max(1e-9);
    let batch = (BATCH_SECONDS / one_call).ceil().clamp(1.0, 1e7) as usize;
    let batches = (budget.as_secs_f64() / (one_call * batch as f64))
        .clamp(MIN_BATCHES as f64, MAX_BATCHES as f64) as usize;
    (batch, batches | 1)
}

/// Measures `cases` at the threads of `team`, about `budget` of timed batches each, a case's
/// batches one after another.
///
/// # Errors
/// Any error of the op itself.
pub fn measure_models(
    cases: &[&ModelCase],
    team: &Team,
    budget: Duration,
) -> Result<Vec<ModelMeasurement>, BroadcastError> {
    let par = team.parallelism();
    let mut prepared = Vec::with_capacity(cases.len());
    for &case in cases {
        let inputs = case.inputs();
        let mut out = case.run(&inputs)?;
        case.run_into(&inputs, &mut out, par)?;
        // A first estimate from one call, refined over about a batch's time, three times:
        // the fastest, so that calls slowed by a page fault, a pool waking up or another
        // process do not shrink the batch.
        let one = time_calls(1, || case.run_into(&inputs, &mut out, par))?;
        let calls = (BATCH_SECONDS / one.max(1e-9)).ceil().clamp(1.0, 1e6) as usize;
        let mut one = f64::INFINITY;
        for _ in 0..3 {
            one = one.min(time_calls(calls, || case.run_into(&inputs, &mut out, par))?);
        }
        let (batch, batches) = model_schedule(one, budget);
        prepared.push(Prepared {
            case,
            inputs,
            out,
            batch,
            batches,
            samples: Vec::with_capacity(batches),
        });
    }
    for p in &mut prepared {
        let op = p.case.prepare()?;
        let views: Vec<_> = p.inputs.iter().map(Tensor::view).collect();
        let out = &mut p.out;
        // One untimed call first: the case measured before this one left its own data in the
        // caches.
        op.run(&views, out.view_mut(), par)?;
        for _ in 0..p.batches {
            let t = time_calls(p.batch, || op.run(&views, out.view_mut(), par))?;
            p.samples.push(t);
        }
    }
    prepared
        .into_iter()
        .map(|mut p| {
            let out_shape = p.out.shape().to_vec();
            Ok(ModelMeasurement {
                group: "model",
                case: p.case.name,
                model: p.case.model,
                op: p.case.op.name(),
                dtype: p.case.dtype.name(),
                shapes: p.case.shapes,
                bytes: p.out.len() * p.out.dtype().size(),
                out_shape,
                threads: team.threads(),
                us_per_call: median(&mut p.samples) * 1e6,
                batch: p.batch,
                batches: p.samples.len(),
            })
        })
        .collect()
}

/// The cases named in `names`, in table order (all of them when `names` is empty).
fn selected(names: &[String]) -> Vec<&'static ModelCase> {
    MODEL_CASES
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
        .collect()
}

/// Prints the cases named in `names` (all when empty) as JSON lines: `--list`.
///
/// # Errors
/// A writing error, or a case the table got wrong, as a message.
pub fn list(names: &[String], out: &mut impl std::io::Write) -> Result<(), String> {
    for case in selected(names) {
        let line = case.describe().map_err(|e| format!("{}: {e}", case.name))?;
        writeln!(out, "{line}").map_err(|e| format!("cannot write the list: {e}"))?;
    }
    Ok(())
}

/// Measures and prints the cases named in `names` (all of them when `names` is empty) at each
/// of `thread_counts`: a table, or one JSON object per line with `json`. This is all
/// `bcast bench` calls for the group.
///
/// # Errors
/// The first measuring or writing error, as a message.
pub fn run_group(
    names: &[String],
    thread_counts: &[usize],
    budget: Duration,
    json: bool,
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write the report: {e}");
    let cases = selected(names);
    if cases.is_empty() {
        return Ok(());
    }
    if !json {
        writeln!(
            out,
            "# model: nodes of real models, one call into a reused output (planning included); \
             microseconds per call, medians"
        )
        .map_err(io)?;
        writeln!(
            out,
            "{:<34} {:>12} {:>10} {:>7} {:>11}",
            "case", "model", "bytes", "threads", "us_per_call"
        )
        .map_err(io)?;
    }
    for &threads in thread_counts {
        let team = team(threads)?;
        let measured = measure_models(&cases, &team, budget).map_err(|e| e.to_string())?;
        for m in measured {
            let line = if json {
                serde_json::to_string(&m).map_err(|e| e.to_string())?
            } else {
                format!(
                    "{:<34} {:>12} {:>10} {:>7} {:>11.2}",
                    m.case, m.model, m.bytes, m.threads, m.us_per_call
                )
            };
            writeln!(out, "{line}").map_err(io)?;
        }
        out.flush().map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sound() {
        assert!(MODEL_CASES.len() >= 25);
        for (i, c) in MODEL_CASES.iter().enumerate() {
            assert!(
                MODEL_CASES[..i].iter().all(|o| o.name != c.name),
                "{}",
                c.name
            );
            assert!(crate::bench::find(c.name).is_none(), "{}", c.name);
            assert!(
                crate::bench_eltwise::find_elt(c.name).is_none(),
                "{}",
                c.name
            );
            assert!(
                crate::bench_fused::find_fused(c.name).is_none(),
                "{}",
                c.name
            );
            // The name says the type, and the shapes broadcast.
            assert!(c.name.ends_with(c.dtype.name()), "{}", c.name);
            let d = c.describe().unwrap();
            assert_eq!(d["case"], c.name);
            assert!(d["bytes"].as_u64().unwrap() > 0, "{}", c.name);
        }
        for dtype in [DType::F32, DType::F16] {
            assert!(MODEL_CASES.iter().any(|c| c.dtype == dtype));
        }
        let mask = find_model("bert_s128_mask_add_f32").unwrap();
        assert_eq!(mask.out_shape().unwrap(), [1, 12, 128, 128]);
        let causal = find_model("gpt2_s256_b8_causal_select_f32").unwrap();
        assert_eq!(causal.out_shape().unwrap(), [8, 12, 256, 256]);
        let whisper = find_model("whisper_tiny_pos_add_f16").unwrap();
        assert_eq!(whisper.out_shape().unwrap(), [1, 1500, 384]);
    }

    #[test]
    fn small_cases_run_and_are_measured() {
        // The decode-sized cases (a few KiB each), every op kind among them: Add, Multiply and
        // Select.
        let names = [
            "llama_decode_residual_f16",
            "llama_decode_rmsnorm_weight_f16",
            "gpt2_decode_causal_select_f32",
        ];
        let cases: Vec<_> = names.iter().map(|n| find_model(n).unwrap()).collect();
        for c in &cases {
            let inputs = c.inputs();
            let want = c.run(&inputs).unwrap();
            assert_eq!(want.shape(), c.out_shape().unwrap().as_slice());
            for threads in [1, 2] {
                let team = team(threads).unwrap();
                let mut out = c.run(&inputs).unwrap();
                c.run_into(&inputs, &mut out, team.parallelism()).unwrap();
                assert!(out.bit_equal(&want), "{}", c.name);
            }
        }
        let team = team(2).unwrap();
        let measured = measure_models(&cases, &team, Duration::from_millis(20)).unwrap();
        assert_eq!(measured.len(), 3);
        for m in &measured {
            assert!(m.us_per_call > 0.0 && m.threads == 2, "{m:?}");
            assert!(m.batches >= MIN_BATCHES && m.batches % 2 == 1, "{m:?}");
        }
        let mut text = Vec::new();
        list(&["llama_decode_residual_f16".into()], &mut text).unwrap();
        let line: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(
            line["shapes"],
            serde_json::json!([[1, 1, 4096], [1, 1, 4096]])
        );
        assert_eq!(line["c_code"], 0);
        assert_eq!(line["dtype"], "f16");
    }

    #[test]
    fn a_team_is_the_calling_thread_or_a_team_of_bcasts() {
        assert!(team(0).is_err());
        assert!(matches!(
            team(1).unwrap().parallelism(),
            Parallelism::Serial
        ));
        assert!(matches!(
            team(3).unwrap().parallelism(),
            Parallelism::Team(t) if t.threads() == 3
        ));
        let (batch, batches) = model_schedule(1e-6, Duration::from_millis(100));
        assert!(batch as f64 * 1e-6 >= BATCH_SECONDS);
        assert!((MIN_BATCHES..=MAX_BATCHES).contains(&batches) && batches % 2 == 1);
    }
}
