// The pulp-rtl board's cluster: NUM_CORES OpenHW CV32E40P cores (COREV_PULP = 1: the
// XpulpV2 extensions in their CORE-V encodings; FPU = 1 adds each core a private FPU),
// unmodified from ../shared/rtl/cv32e40p. Every core's instruction and data ports (OBI)
// are brought out as they are: the memories, the banked L1's arbitration, the event unit
// and the DMA engine are the C++ testbench's (pulp_rtl_tb.cpp), which drives them cycle
// by cycle. Each core has its own clock input: the testbench gates the clock of a core
// waiting in the event unit, as a PULP cluster does (and the simulation skips its logic).
module tessera_pulp_cluster #(
    parameter int NUM_CORES = 1,
    parameter int FPU = 0,
    parameter int FPU_LAT = 0,
    parameter int BOOT_ADDR = 32'h1C00_0000
) (
    input logic clk_i [NUM_CORES],
    input logic rst_ni,

    output logic        instr_req_o   [NUM_CORES],
    input  logic        instr_gnt_i   [NUM_CORES],
    input  logic        instr_rvalid_i[NUM_CORES],
    output logic [31:0] instr_addr_o  [NUM_CORES],
    input  logic [31:0] instr_rdata_i [NUM_CORES],

    output logic        data_req_o   [NUM_CORES],
    input  logic        data_gnt_i   [NUM_CORES],
    input  logic        data_rvalid_i[NUM_CORES],
    output logic        data_we_o    [NUM_CORES],
    output logic [ 3:0] data_be_o    [NUM_CORES],
    output logic [31:0] data_addr_o  [NUM_CORES],
    output logic [31:0] data_wdata_o [NUM_CORES],
    input  logic [31:0] data_rdata_i [NUM_CORES]
);
  for (genvar i = 0; i < NUM_CORES; i++) begin : core
    cv32e40p_top #(
        .COREV_PULP(1),
        .COREV_CLUSTER(0),
        .FPU(FPU),
        .FPU_ADDMUL_LAT(FPU_LAT),  // pipeline stages in the FMA
        .FPU_OTHERS_LAT(FPU_LAT),
        .ZFINX(0),
        .NUM_MHPMCOUNTERS(1)
    ) cv32e40p_i (
        .clk_i(clk_i[i]),
        .rst_ni(rst_ni),
        .pulp_clock_en_i(1'b1),
        .scan_cg_en_i(1'b0),
        .boot_addr_i(BOOT_ADDR),
        .mtvec_addr_i(BOOT_ADDR),
        .dm_halt_addr_i(BOOT_ADDR),
        .hart_id_i(i),
        .dm_exception_addr_i(BOOT_ADDR),
        .instr_req_o(instr_req_o[i]),
        .instr_gnt_i(instr_gnt_i[i]),
        .instr_rvalid_i(instr_rvalid_i[i]),
        .instr_addr_o(instr_addr_o[i]),
        .instr_rdata_i(instr_rdata_i[i]),
        .data_req_o(data_req_o[i]),
        .data_gnt_i(data_gnt_i[i]),
        .data_rvalid_i(data_rvalid_i[i]),
        .data_we_o(data_we_o[i]),
        .data_be_o(data_be_o[i]),
        .data_addr_o(data_addr_o[i]),
        .data_wdata_o(data_wdata_o[i]),
        .data_rdata_i(data_rdata_i[i]),
        .irq_i(32'b0),
        .irq_ack_o(),
        .irq_id_o(),
        .debug_req_i(1'b0),
        .debug_havereset_o(),
        .debug_running_o(),
        .debug_halted_o(),
        .fetch_enable_i(1'b1),
        .core_sleep_o()
    );
  end
endmodule
